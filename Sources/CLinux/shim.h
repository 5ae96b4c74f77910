// Linux calls that Glibc's Swift module does not declare (it is built without _GNU_SOURCE).
#ifndef HEARTH_CLINUX_SHIM_H
#define HEARTH_CLINUX_SHIM_H

#include <linux/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

// The link count of an open file (-1 with errno set when it cannot be read), asking the
// kernel for nothing else. A stat that asks for a file's times makes Linux (6.13 on, with
// multigrain timestamps) give the file's next write a fine-grained time stamp, so every
// write dirties its inode and every fdatasync writes the inode too: one more disk write a
// sync for a file that is statted before each sync.
static inline long hearth_link_count(int descriptor) {
  struct statx status;
  if (syscall(SYS_statx, descriptor, "", 0x1000 /* AT_EMPTY_PATH */, STATX_NLINK, &status) != 0)
    return -1;
  return (long)status.stx_nlink;
}

#endif
