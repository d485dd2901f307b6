# fuzz.mk -- GNU make rules for the fuzz targets; build.sh runs this.
#
# Copyright (C) 2026 The profcopy authors.
# This file is part of profcopy, distributed under the GNU General Public
# License version 3 or later; see COPYING.
#
# Every source the targets use is compiled again here, into OUT, with
# the sanitizers and the fuzzer's coverage; the libraries of the normal
# build are not used.  Variables (build.sh sets them all):
#   SRCDIR    the top of the source tree
#   BUILDDIR  the top of a configured build tree (for config.h)
#   OUT       where the objects and the targets go
#   CC        clang, or afl-clang-fast for AFL++
#   SANITIZE  the -fsanitize= list of the compilations
#   LINK_SANITIZE  the -fsanitize= list of the links
#   BFD_LIBS  the BFD and libopcodes libraries configure found
#   IBERTY_LIBS  libiberty, for the demangler, when configure found it
#   ZLIB_LIBS  zlib, for compressed debug sections, when configure found it

TARGETS = object decode relocs rewrite profile trace debug

LIB_SOURCES = \
	bfd-plugin/object.c bfd-plugin/object-bfd.c bfd-plugin/file-image.c \
	bfd-plugin/profile-read.c bfd-plugin/copy-tables.c bfd-plugin/dynamic.c bfd-plugin/got.c \
	bfd-plugin/debug-file.c \
	bfd-plugin/symbols.c bfd-plugin/ehframe.c bfd-plugin/ehframe-write.c \
	bfd-plugin/ehframe-enc.c bfd-plugin/ehframe-lsda.c \
	bfd-plugin/libsearch.c bfd-plugin/elf-write.c bfd-plugin/crc32.c \
	bfd-plugin/dwarf-line.c bfd-plugin/dwarf-units.c bfd-plugin/debug-lines.c \
	opcodes-glue/decode.c opcodes-glue/fields.c opcodes-glue/cfg.c \
	opcodes-glue/liveness.c opcodes-glue/liveness-narrow.c \
	opcodes-glue/regnames.c \
	common/array.c common/errmsg.c common/version.c \
	profcopy/analyse/reloc-table.c profcopy/analyse/got-ref.c \
	profcopy/analyse/settle.c \
	profcopy/analyse/gp-bases.c profcopy/analyse/gp-regions.c \
	profcopy/analyse/jump-tables.c \
	profcopy/analyse/regflow.c profcopy/analyse/analysis.c \
	profcopy/analyse/islands.c \
	profcopy/dump.c profcopy/plan/derive.c profcopy/plan/estimate.c \
	profcopy/plan/from-profile.c \
	profcopy/analyse/returns.c profcopy/analyse/scope.c \
	profcopy/analyse/entries.c profcopy/analyse/callees.c \
	profcopy/analyse/regstate.c profcopy/analyse/t9state.c \
	profcopy/analyse/facts.c profcopy/analyse/narrow.c \
	profcopy/plan/placement.c profcopy/plan/window.c \
	profcopy/plan/got.c profcopy/plan/translate.c profcopy/plan/plan.c \
	profcopy/plan/marks.c \
	profcopy/emit/layout.c profcopy/emit/walk.c \
	profcopy/emit/increments.c profcopy/emit/text.c \
	profcopy/emit/hooks.c profcopy/emit/branches.c \
	profcopy/emit/segment.c profcopy/emit/relocate.c profcopy/rewrite.c \
	profcopy/static-runtime.c \
	report/report.c report/output.c report/lines.c report/inclusive.c \
	report/callgrind.c \
	report/calls.c report/calls-print.c \
	report/trace-read.c report/trace-report.c report/trace-print.c \
	report/trace-output.c \
	report/copy-map.c \
	testsuite/fuzz/fuzz-file.c

CPPFLAGS = -I$(BUILDDIR) -I$(SRCDIR)/bfd-plugin -I$(SRCDIR)/opcodes-glue \
	-I$(SRCDIR)/profcopy -I$(SRCDIR)/profcopy/analyse \
	-I$(SRCDIR)/profcopy/plan -I$(SRCDIR)/report -I$(SRCDIR)/include \
	-I$(SRCDIR)/common \
	-I$(SRCDIR)/testsuite/fuzz
CFLAGS = -std=gnu11 -g -O1 -fno-omit-frame-pointer -Wall -Wextra \
	-fsanitize=$(SANITIZE) -fno-sanitize-recover=all
LDFLAGS = -fsanitize=$(LINK_SANITIZE)
LIBS = $(BFD_LIBS) $(IBERTY_LIBS) $(ZLIB_LIBS) -lpthread -lm

LIB_OBJECTS = $(LIB_SOURCES:%.c=$(OUT)/obj/%.o)

all: $(TARGETS:%=$(OUT)/fuzz-%)

$(OUT)/fuzz-%: $(OUT)/obj/testsuite/fuzz/fuzz-%.o $(LIB_OBJECTS)
	$(CC) $(LDFLAGS) -o $@ $^ $(LIBS)

$(OUT)/obj/%.o: $(SRCDIR)/%.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c -o $@ $<

.PHONY: all
.SECONDARY:

-include $(LIB_OBJECTS:.o=.d) $(TARGETS:%=$(OUT)/obj/testsuite/fuzz/fuzz-%.d)
