// The one header through which Swift sees OpenSSL's libcrypto (Debian's libssl-dev), for
// SHA-256 with the processor's SHA instructions.
#ifndef HEARTH_CCRYPTO_SHIM_H
#define HEARTH_CCRYPTO_SHIM_H
#include <openssl/evp.h>
#endif
