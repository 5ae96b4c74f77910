// The one header through which Swift sees libzmq (Debian's libzmq3-dev).
#ifndef HEARTH_CZMQ_SHIM_H
#define HEARTH_CZMQ_SHIM_H
#include <zmq.h>
#endif
