// The one header through which Swift sees libmicrohttpd (Debian's libmicrohttpd-dev).
#ifndef HEARTH_CMICROHTTPD_SHIM_H
#define HEARTH_CMICROHTTPD_SHIM_H
#include <stdint.h>
#include <string.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <microhttpd.h>

// MHD_start_daemon and MHD_get_daemon_info are variadic; Swift cannot call them directly.

/// A daemon on one loopback address: 127.0.0.1, or ::1 when `ipv6`; `port` 0 lets the
/// kernel choose. One thread per connection (a Server-Sent Events stream blocks its own
/// thread, never another's), at most `connections` at once and `per_address` from one
/// address, `memory` bytes of a request's headers, closed after `timeout` idle seconds.
static inline struct MHD_Daemon *
hearth_mhd_start_loopback(int ipv6, uint16_t port, MHD_AccessHandlerCallback handler,
                          void *handler_context, MHD_RequestCompletedCallback completed,
                          void *completed_context, unsigned int connections,
                          unsigned int per_address, size_t memory, unsigned int timeout) {
  struct sockaddr_in v4;
  struct sockaddr_in6 v6;
  const struct sockaddr *address;
  unsigned int flags = MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD |
                       MHD_USE_POLL | MHD_USE_ERROR_LOG;
  if (ipv6) {
    memset(&v6, 0, sizeof v6);
    v6.sin6_family = AF_INET6;
    v6.sin6_port = htons(port);
    v6.sin6_addr = in6addr_loopback;
    address = (const struct sockaddr *)&v6;
    flags |= MHD_USE_IPv6;
  } else {
    memset(&v4, 0, sizeof v4);
    v4.sin_family = AF_INET;
    v4.sin_port = htons(port);
    v4.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address = (const struct sockaddr *)&v4;
  }
  return MHD_start_daemon(flags, port, NULL, NULL, handler, handler_context,
                          MHD_OPTION_SOCK_ADDR, address,
                          MHD_OPTION_NOTIFY_COMPLETED, completed, completed_context,
                          MHD_OPTION_CONNECTION_LIMIT, connections,
                          MHD_OPTION_PER_IP_CONNECTION_LIMIT, per_address,
                          MHD_OPTION_CONNECTION_MEMORY_LIMIT, memory,
                          MHD_OPTION_CONNECTION_TIMEOUT, timeout,
                          MHD_OPTION_END);
}

/// The port a daemon listens on (0 when unknown).
static inline uint16_t hearth_mhd_port(struct MHD_Daemon *daemon) {
  const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
  return info == NULL ? 0 : info->port;
}

/// A response whose body libmicrohttpd copies.
static inline struct MHD_Response *hearth_mhd_copied_response(size_t size, const void *bytes) {
  return MHD_create_response_from_buffer(size, (void *)bytes, MHD_RESPMEM_MUST_COPY);
}

#endif
