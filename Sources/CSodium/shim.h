// The one header through which Swift sees libsodium (Debian's libsodium-dev), for hashing.
#ifndef HEARTH_CSODIUM_SHIM_H
#define HEARTH_CSODIUM_SHIM_H
#include <sodium.h>
#endif
