/* qemu-plugin-api.h -- the few declarations of the QEMU TCG plugin API
   (version 1, as exported by qemu-user 7.2) that the counting plugin uses.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General Public
   License version 3 or later; see COPYING.

   Debian 12 installs no qemu-plugin.h, so this file declares, from the
   API documentation, only what count-plugin.c calls.  The functions are
   resolved at load time against the symbols that the qemu-user binary
   exports (`nm -D /usr/bin/qemu-mips | grep qemu_plugin').  Keep this in
   step with the documented ABI: QEMU refuses a plugin whose
   qemu_plugin_version is outside the range it supports.  */

#ifndef PROFCOPY_QEMU_PLUGIN_API_H
#define PROFCOPY_QEMU_PLUGIN_API_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The API version this plugin is written against.  */
#define PROFCOPY_QEMU_PLUGIN_API_VERSION 1

/* Symbols QEMU looks up in the plugin must stay visible.  */
#define PROFCOPY_PLUGIN_EXPORT __attribute__ ((visibility ("default")))

/* The handle QEMU gives the plugin at install time.  */
typedef uint64_t qemu_plugin_id_t;

/* What QEMU tells the plugin about itself at install time.  */
typedef struct qemu_info_t
{
  /* The guest architecture, e.g. "mips".  */
  const char *target_name;
  /* The range of API versions QEMU supports.  */
  struct
  {
    int min;
    int cur;
  } version;
  /* True for full-system emulation, false for qemu-user.  */
  bool system_emulation;
  union
  {
    struct
    {
      int smp_vcpus;
      int max_vcpus;
    } system;
  };
} qemu_info_t;

/* Opaque handles of a translation block and of one of its
   instructions, valid only during the translation callback.  */
struct qemu_plugin_tb;
struct qemu_plugin_insn;

/* Whether an execution callback may look at guest registers.  */
enum qemu_plugin_cb_flags
{
  QEMU_PLUGIN_CB_NO_REGS,
  QEMU_PLUGIN_CB_R_REGS,
  QEMU_PLUGIN_CB_RW_REGS
};

/* The operations an inline counter can do.  */
enum qemu_plugin_op
{
  QEMU_PLUGIN_INLINE_ADD_U64
};

typedef void (*qemu_plugin_udata_cb_t) (qemu_plugin_id_t id, void *userdata);
typedef void (*qemu_plugin_vcpu_udata_cb_t) (unsigned int vcpu_index,
					     void *userdata);
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t) (qemu_plugin_id_t id,
						struct qemu_plugin_tb *tb);

/* Provided by the plugin.  */
PROFCOPY_PLUGIN_EXPORT extern int qemu_plugin_version;
PROFCOPY_PLUGIN_EXPORT int qemu_plugin_install (qemu_plugin_id_t id,
						const qemu_info_t *info,
						int argc, char **argv);

/* Provided by QEMU.  */
void qemu_plugin_register_vcpu_tb_trans_cb (qemu_plugin_id_t id,
					    qemu_plugin_vcpu_tb_trans_cb_t cb);
void qemu_plugin_register_vcpu_tb_exec_cb (struct qemu_plugin_tb *tb,
					   qemu_plugin_vcpu_udata_cb_t cb,
					   enum qemu_plugin_cb_flags flags,
					   void *userdata);
void qemu_plugin_register_vcpu_tb_exec_inline (struct qemu_plugin_tb *tb,
					       enum qemu_plugin_op op,
					       void *ptr, uint64_t imm);
void qemu_plugin_register_vcpu_insn_exec_cb (struct qemu_plugin_insn *insn,
					     qemu_plugin_vcpu_udata_cb_t cb,
					     enum qemu_plugin_cb_flags flags,
					     void *userdata);
void qemu_plugin_register_vcpu_insn_exec_inline (struct qemu_plugin_insn *insn,
						 enum qemu_plugin_op op,
						 void *ptr, uint64_t imm);
size_t qemu_plugin_tb_n_insns (const struct qemu_plugin_tb *tb);
uint64_t qemu_plugin_tb_vaddr (const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn (const struct qemu_plugin_tb *tb,
						  size_t idx);
uint64_t qemu_plugin_insn_vaddr (const struct qemu_plugin_insn *insn);
void qemu_plugin_register_atexit_cb (qemu_plugin_id_t id,
				     qemu_plugin_udata_cb_t cb,
				     void *userdata);
void qemu_plugin_outs (const char *string);
uint64_t qemu_plugin_start_code (void);
uint64_t qemu_plugin_end_code (void);
uint64_t qemu_plugin_entry_code (void);

#endif /* PROFCOPY_QEMU_PLUGIN_API_H */
