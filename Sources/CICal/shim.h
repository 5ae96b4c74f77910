// The one header through which Swift sees libical (Debian's libical-dev): iCalendar parsed
// and written for the reminders' CalDAV bridge.
#ifndef HEARTH_CICAL_SHIM_H
#define HEARTH_CICAL_SHIM_H
#include <stdlib.h>
#include <libical/ical.h>
#endif
