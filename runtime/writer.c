/* writer.c -- the profile file.  Part of libprofcopy.so.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.

   The profile is named after PROFCOPY_OUTPUT or the program and the
   pid, written through a temporary file and renamed into place, or
   written into a device or FIFO as it is; a symbolic link's target
   gets it and the link stays, and the profile that an earlier image of
   the process wrote before an exec keeps its name.  What the file
   holds, the header and the records, is written by records.c.  No
   libc call, no heap, errno untouched.  */

#define _GNU_SOURCE 1

#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "profile-format.h"
#include "profile.h"
#include "runtime.h"
#include "segment.h"
#include "sys.h"
#include "writer-int.h"

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

/* PROFCOPY_OUTPUT as an absolute name (relative names are taken from
   the directory the program started in), or "" for the default,
   PROGRAM.PID.prof there.  */
static char output_template[PATH_MAX];

/* The directory the program started in, with a final slash, or "" if
   it cannot be had.  */
static char start_dir[PATH_MAX];

/* The profile's file name and its temporary name.  Static rather than
   on the stack, which may be nearly full when a fatal signal arrives;
   guarded by the busy flag (pcrt_try_busy).  */
static char profile_path[PATH_MAX], temp_path[PATH_MAX];

/* The profile this process image wrote last ("" if none): it may
   replace that one, not one that an earlier image of the same process
   wrote before an exec.  */
static char written_path[PATH_MAX];

/* Messages on standard error only with PROFCOPY_VERBOSE set: the
   runtime must not change what the program writes.  */
static bool verbose;

/* Whether the records hold the objects' tables (PROFCOPY_TABLES=profile)
   or leave them in the profiled copies (the default).  */
bool pcrt_tables_here;

/* Whether every counter is written (PROFCOPY_COUNTS=all), not only the
   runs of those that may not be 0.  */
bool pcrt_dense_asked;

/* Report that the profile NAME could not be written: WHAT, for the
   error number ERR.  */

static void
report_error (const char *name, const char *what, int err)
{
  char num[24];
  const char *reason = rt_strerror (err);

  if (!verbose)
    return;
  if (reason == NULL)
    {
      rt_format_decimal (num, (unsigned) err);
      const char *parts[] = { name, ": ", what, ": error ", num, NULL };
      rt_say (parts);
      return;
    }
  const char *parts[] = { name, ": ", what, ": ", reason, NULL };
  rt_say (parts);
}

/* Build the profile's file name for process PID into BUF (SIZE bytes):
   the output template with %p replaced by the pid and %% by %, or
   else the program's base name, the pid and ".prof", in the directory
   the program started in (every process keeps its profile).  Return
   false if too long.  */

static bool
profile_name (char *buf, size_t size, long pid)
{
  size_t len = 0;
  char num[24];

  buf[0] = '\0';
  if (output_template[0] == '\0')
    {
      const char *prog = pcrt_program_name ();
      if (prog == NULL || prog[0] == '\0')
	prog = "profcopy";
      return (rt_append (buf, size, &len, start_dir, rt_strlen (start_dir))
	      && rt_append (buf, size, &len, prog, rt_strlen (prog))
	      && rt_append (buf, size, &len, ".", 1)
	      && rt_append (buf, size, &len, num,
			    rt_format_decimal (num, (unsigned long) pid))
	      && rt_append (buf, size, &len, ".prof", 5));
    }
  for (const char *p = output_template; *p != '\0'; p++)
    {
      bool ok;
      if (p[0] == '%' && p[1] == 'p')
	{
	  ok = rt_append (buf, size, &len, num,
			  rt_format_decimal (num, (unsigned long) pid));
	  p++;
	}
      else if (p[0] == '%' && p[1] == '%')
	{
	  ok = rt_append (buf, size, &len, "%", 1);
	  p++;
	}
      else
	ok = rt_append (buf, size, &len, p, 1);
      if (!ok)
	return false;
    }
  return true;
}

/* If PATH is a symbolic link, replace it in place (SIZE bytes) by the
   name of the file it finally leads to, so that the profile goes to
   the link's target and the link stays.  Return 0 or -errno.  */

static long
follow_links (char *path, size_t size)
{
  for (int depth = 0; depth < 40; depth++)
    {
      char target[PATH_MAX];
      long mode = sys_file_mode (path, true), n;
      size_t dir, len;

      if (mode < 0 || (mode & K_S_IFMT) != K_S_IFLNK)
	return 0;
      n = sys_readlink (path, target, sizeof target - 1);
      if (n < 0)
	return n;
      target[n] = '\0';
      if (target[0] == '/')
	{
	  if ((size_t) n >= size)
	    return -ENAMETOOLONG;
	  rt_memcpy (path, target, (size_t) n + 1);
	  continue;
	}
      /* Relative to the link's directory.  */
      for (dir = rt_strlen (path); dir > 0 && path[dir - 1] != '/'; dir--)
	continue;
      len = dir;
      path[len] = '\0';
      if (!rt_append (path, size, &len, target, (size_t) n))
	return -ENAMETOOLONG;
    }
  return -ELOOP;
}

/* True if PATH holds a profile written by process PID (the first
   bytes of its header say so).  */

static bool
profile_of (const char *path, long pid)
{
  unsigned char h[PCPROF_HEADER_SIZE];
  uint32_t p;
  long fd = sys_open (path, O_RDONLY | O_NONBLOCK | O_CLOEXEC, 0), n;

  if (fd < 0)
    return false;
  n = RAW_SYSCALL4 (__NR_read, fd, h, sizeof h, 0);
  sys_close ((int) fd);
  if (n != (long) sizeof h)
    return false;
  for (size_t i = 0; i < PCPROF_MAGIC_LEN; i++)
    if (h[PCPROF_H_MAGIC + i] != (unsigned char) PCPROF_MAGIC[i])
      return false;
  rt_memcpy (&p, h + PCPROF_H_PID, sizeof p);
  return p == (uint32_t) pid;
}

/* PROFILE_PATH exists: if an earlier image of process PID wrote it
   (before an exec into this one), change it to the first free name of
   NAME.1.prof, NAME.2.prof... (NAME.1 without the .prof ending), so
   that each image of an exec chain keeps its profile.  False if no
   name is free.  */

static bool
free_name (long pid)
{
  char num[24];
  size_t len = rt_strlen (profile_path), stem = len;
  bool prof = len > 5 && rt_streq (profile_path + len - 5, ".prof");

  if (!profile_of (profile_path, pid))
    return true;
  if (prof)
    stem -= 5;
  for (unsigned k = 1; k < 1000; k++)
    {
      size_t n = 0;
      temp_path[0] = '\0';
      if (!rt_append (temp_path, sizeof temp_path, &n, profile_path, stem)
	  || !rt_append (temp_path, sizeof temp_path, &n, ".", 1)
	  || !rt_append (temp_path, sizeof temp_path, &n, num,
			 rt_format_decimal (num, k))
	  || (prof && !rt_append (temp_path, sizeof temp_path, &n, ".prof", 5)))
	break;
      if (sys_file_mode (temp_path, true) < 0
	  || !profile_of (temp_path, pid))
	{
	  rt_memcpy (profile_path, temp_path, n + 1);
	  return true;
	}
    }
  report_error (profile_path, "cannot write the profile", EEXIST);
  return false;
}

/* Set SIGXFSZ to be ignored while the profile is written (a file size
   limit must not kill the program), keeping its action in *OLD for
   restore_xfsz, which puts it back whatever it was (SIG_DFL too: an
   ignored signal stays ignored across exec, so a program the profiled
   one runs would otherwise inherit it).  Guarded by the busy flag.  */

static bool xfsz_saved;

static void
quiet_xfsz (struct k_sigaction *old)
{
  struct k_sigaction ign;

  rt_memset (&ign, 0, sizeof ign);
  ign.handler = SIG_IGN;
  xfsz_saved = sys_sigaction (SIGXFSZ, &ign, old) == 0;
}

static void
restore_xfsz (const struct k_sigaction *old)
{
  if (xfsz_saved)
    sys_sigaction (SIGXFSZ, old, NULL);
  xfsz_saved = false;
}

/* write_file's writing, with SIGXFSZ ignored: into PROFILE_PATH as it
   is when it is SPECIAL (a device, a FIFO or a socket), else through
   TEMP_PATH renamed into place, which is removed if anything failed.
   Return 0, or the error number.  */

static int
write_into (long pid, unsigned reason, int signo, struct snapshot *s,
	    bool special)
{
  char num[24];
  size_t len;
  long r;

  if (special)
    {
      r = sys_open (profile_path,
		    O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0);
      if (r < 0)
	return (int) -r;
      pcrt_out.fd = (int) r;
      pcrt_put_profile (pid, reason, signo, s);
      sys_close (pcrt_out.fd);
      return pcrt_out.error;
    }
  len = rt_strlen (profile_path);
  rt_memcpy (temp_path, profile_path, len + 1);
  if (!rt_append (temp_path, sizeof temp_path, &len, ".", 1)
      || !rt_append (temp_path, sizeof temp_path, &len, num,
		     rt_format_decimal (num, (unsigned long) pid))
      || !rt_append (temp_path, sizeof temp_path, &len, ".tmp", 4))
    return ENAMETOOLONG;
  r = sys_open (temp_path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW
			   | O_CLOEXEC, 0666);
  if (r < 0)
    return (int) -r;
  pcrt_out.fd = (int) r;
  pcrt_put_profile (pid, reason, signo, s);
  r = sys_close (pcrt_out.fd);
  if (r < 0 && pcrt_out.error == 0)
    pcrt_out.error = (int) -r;
  if (pcrt_out.error == 0 && (r = sys_rename (temp_path, profile_path)) < 0)
    pcrt_out.error = (int) -r;
  if (pcrt_out.error != 0)
    sys_unlink (temp_path);
  return pcrt_out.error;
}

/* Write the profile of process PID to PROFILE_PATH.  A regular file
   (or none yet) is written through a temporary file in the same
   directory and renamed into place, so that a reader never sees half
   a profile; a symbolic link's target gets the profile, the link
   stays; a device, a FIFO or a socket is written into as it is (a
   FIFO without a reader is left alone rather than waited for).
   Return true on success.  */

static bool
write_file (long pid, unsigned reason, int signo, struct snapshot *s)
{
  long r, mode;
  struct k_sigaction xfsz;
  bool special;
  int err;

  r = follow_links (profile_path, sizeof profile_path);
  if (r < 0)
    {
      report_error (profile_path, "cannot write the profile", (int) -r);
      return false;
    }
  mode = sys_file_mode (profile_path, false);
  special = mode >= 0 && (mode & K_S_IFMT) != K_S_IFREG;
  if (!special && mode >= 0 && !rt_streq (profile_path, written_path)
      && !free_name (pid))
    return false;
  if (special && (mode & K_S_IFMT) == K_S_IFDIR)
    {
      report_error (profile_path, "cannot write the profile", EISDIR);
      return false;
    }
  quiet_xfsz (&xfsz);
  err = write_into (pid, reason, signo, s, special);
  restore_xfsz (&xfsz);
  if (err != 0)
    {
      report_error (profile_path, "cannot write the profile", err);
      return false;
    }
  if (!special)
    rt_memcpy (written_path, profile_path, rt_strlen (profile_path) + 1);
  return true;
}

/* With the carry test on (PROFCOPY_TEST_CARRY=1), append to the file
   PROFCOPY_TEST_CARRY_REPORT names a line of its figures: "biased N
   watcher W write X", the counters biased and the wraps of low words
   the watcher and the snapshots found.  */

static void
report_carry_test (void)
{
  uint32_t biased, watcher_wraps, other_wraps;
  const char *file;
  char line[96], num[24];
  size_t len = 0;
  long fd;

  if (!pcrt_fold_test_figures (&biased, &watcher_wraps, &other_wraps)
      || (file = rt_setting ("PROFCOPY_TEST_CARRY_REPORT")) == NULL)
    return;
  rt_append (line, sizeof line, &len, "biased ", 7);
  rt_append (line, sizeof line, &len, num, rt_format_decimal (num, biased));
  rt_append (line, sizeof line, &len, " watcher ", 9);
  rt_append (line, sizeof line, &len, num,
	     rt_format_decimal (num, watcher_wraps));
  rt_append (line, sizeof line, &len, " write ", 7);
  rt_append (line, sizeof line, &len, num,
	     rt_format_decimal (num, other_wraps));
  rt_append (line, sizeof line, &len, "\n", 1);
  fd = sys_open (file, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0666);
  if (fd >= 0)
    {
      long r = sys_write_all ((int) fd, line, len);
      if (r < 0)
	report_error (file, "cannot write", (int) -r);
      sys_close ((int) fd);
    }
}

/* Take PROFCOPY_OUTPUT from the environment, as an absolute name, and
   note the starting directory.  */

static void
read_output_setting (void)
{
  const char *o = rt_setting ("PROFCOPY_OUTPUT");
  size_t len = 0;
  long n = sys_getcwd (start_dir, sizeof start_dir - 1);

  if (n <= 0)
    start_dir[0] = '\0';
  else
    {
      len = rt_strlen (start_dir);
      if (len > 0 && start_dir[len - 1] != '/')
	rt_append (start_dir, sizeof start_dir, &len, "/", 1);
    }
  output_template[0] = '\0';
  if (o == NULL || o[0] == '\0')
    return;
  len = 0;
  if (o[0] != '/')
    rt_append (output_template, sizeof output_template, &len, start_dir,
	       rt_strlen (start_dir));
  if (!rt_append (output_template, sizeof output_template, &len, o,
		  rt_strlen (o)))
    {
      rt_memcpy (profile_path, o, rt_strlen (o) < 200 ? rt_strlen (o) + 1
		 : 200);
      profile_path[199] = '\0';
      report_error (profile_path, "cannot name the profile", ENAMETOOLONG);
      output_template[0] = '\0';
    }
}

void
pcrt_writer_init (char *const *env)
{
  const char *tables, *counts;

  rt_note_settings (env);
  tables = rt_setting ("PROFCOPY_TABLES");
  counts = rt_setting ("PROFCOPY_COUNTS");
  verbose = rt_setting ("PROFCOPY_VERBOSE") != NULL;
  pcrt_tables_here = tables != NULL && rt_streq (tables, "profile");
  pcrt_dense_asked = counts != NULL && rt_streq (counts, "all");
  read_output_setting ();
}

bool
pcrt_write_file (long pid, unsigned reason, int signo, struct snapshot *s)
{
  if (!profile_name (profile_path, sizeof profile_path, pid))
    {
      report_error (profile_path, "cannot name the profile", ENAMETOOLONG);
      return false;
    }
  report_carry_test ();
  return write_file (pid, reason, signo, s);
}
