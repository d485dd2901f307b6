/* object-bfd.c -- the BFD of an object, for libopcodes.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.

   object.c reads the ELF structures from the image itself; only the
   disassembler wants a BFD (for the machine of the object).  Opening
   it lives here, apart, so that a program that does not disassemble
   (profreport, through object_read) does not link libbfd, whose
   relocation at start-up was a fifth of profreport's time on a
   whole-program profile.  */

#include <config.h>

#include <bfd.h>

#include "object-int.h"

/* Close the BFD ABFD (the close_abfd of the object that has it).  */

static void
close_bfd (void *abfd)
{
  bfd_close ((bfd *) abfd);
}

/* Open OBJ->path with BFD and check that BFD sees a MIPS object.  */

static bool
open_bfd (struct mips_object *obj, char **errmsg)
{
  static bool initialized;
  bfd *abfd;

  if (!initialized)
    {
      bfd_init ();
      initialized = true;
    }
  abfd = bfd_openr (obj->path, NULL);
  if (abfd == NULL)
    return object_error (errmsg, "BFD cannot open it: %s",
			 bfd_errmsg (bfd_get_error ()));
  if (!bfd_check_format (abfd, bfd_object))
    {
      /* Several MIPS ELF targets may claim the file; name ours.  */
      bool ambiguous
	= bfd_get_error () == bfd_error_file_ambiguously_recognized;
      bfd_close (abfd);
      abfd = NULL;
      if (ambiguous)
	{
	  abfd = bfd_openr (obj->path, obj->big_endian ? "elf32-tradbigmips"
			    : "elf32-tradlittlemips");
	  if (abfd != NULL && !bfd_check_format (abfd, bfd_object))
	    {
	      bfd_close (abfd);
	      abfd = NULL;
	    }
	}
      if (abfd == NULL)
	return object_error (errmsg, "BFD does not recognize it as an "
			     "object: %s", bfd_errmsg (bfd_get_error ()));
    }
  obj->abfd = abfd;
  obj->close_abfd = close_bfd;
  if (bfd_get_arch (abfd) != bfd_arch_mips)
    return object_error (errmsg, "BFD does not see a MIPS object "
			 "(architecture %s)", bfd_printable_name (abfd));
  return true;
}

/* Open PATH into OBJ, with its BFD; on failure set *ERRMSG.  */

bool
object_open (const char *path, struct mips_object *obj, char **errmsg)
{
  if (!object_open_1 (path, obj, OBJECT_OPEN_FULL, errmsg))
    return false;
  if (!open_bfd (obj, errmsg))
    {
      object_close (obj);
      return false;
    }
  return true;
}
