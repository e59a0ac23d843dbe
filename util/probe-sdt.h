/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TK_PROBE_SDT_H
#define TK_PROBE_SDT_H

#include <gelf.h>
#include <stddef.h>
#include <stdint.h>

#include "arch/arch.h"
#include "util/probe-file.h"
#include "util/strbuf.h"

/*
 * SDT markers (<sys/sdt.h>, "USDT"): the .note.stapsdt notes of an ELF
 * file, turned into uprobe definitions.  Each note (owner "stapsdt", type
 * 3) describes one call site: desc = pc, base, semaphore (three address
 * sized words) then provider\0 name\0 arguments\0.  pc and semaphore are
 * link-time addresses; a prelinked file moved them by the distance
 * between .stapsdt.base's real address and the base word.  uprobes want
 * FILE offsets, both for the probe and for the (ref_ctr_offset) that
 * makes the kernel count the semaphore up while the event is enabled.
 */

#define SDT_NOTE_OWNER	"stapsdt"
#define SDT_NOTE_TYPE	3

/* One decoded descriptor; the strings point into the descriptor. */
struct sdt_note {
	uint64_t pc;
	uint64_t base;
	uint64_t sema;
	const char *provider;
	const char *name;
	const char *args;
};

/*
 * Decodes the descriptor of one stapsdt note (len bytes, the word size of
 * elfclass, the byte order of elfdata).  0, or -EINVAL with the reason in
 * why: short descriptor, missing NUL, empty provider or name.
 */
int sdt_note_decode(const unsigned char *desc, size_t len, int elfclass,
		    int elfdata, struct sdt_note *note, struct strbuf *why);

/*
 * Parses one argument "[-]SIZE[f]@OPERAND" (len bytes of text), the
 * operand in the assembler syntax of a (its sdt_operand_parse).  Returns
 * 0; -EINVAL when it is malformed; -EOPNOTSUPP when it is valid but no
 * fetcharg can express it (on x86: SIB index, segment prefix, symbol
 * constant, unknown register; on arm64: an index register, a SIMD
 * register).  why gets the reason in both cases.
 */
int sdt_arg_parse(const struct arch *a, const char *text, size_t len,
		  struct sdt_arg *arg, struct strbuf *why);
void sdt_arg_release(struct sdt_arg *arg);

/*
 * The fetcharg ("%bx", "+8(%di)", "\42", "@+0x4010") and its type ("s32",
 * "x64" for floats, "b8@8/64" for %ah-style registers; empty when the
 * note gives no size).  rip_n is the uprobe @+ value of SYM+DISP for
 * SDT_OP_RIP, resolved by the caller.
 */
void sdt_arg_fetcharg(const struct sdt_arg *arg, uint64_t rip_n,
		      struct strbuf *fetch, struct strbuf *type);

/* One argument of a marker, converted. */
struct sdt_fetch {
	char *text;		/* as the note writes it */
	char *fetch;		/* NULL when it cannot be expressed */
	char *type;		/* NULL for none */
	char *why;		/* why fetch is NULL */
	int size;
	unsigned is_imm:1;
	unsigned high_byte:1;
};

struct sdt_marker {
	char *provider;
	char *name;
	char *args;		/* the argument string of the note */
	uint64_t pc;		/* vaddr, after the prelink adjustment */
	uint64_t sema;		/* vaddr or 0, after the prelink adjustment */
	uint64_t pc_off;	/* file offset of the probe */
	uint64_t sema_off;	/* file offset of the semaphore, if has_sema */
	unsigned has_sema:1;
	uint64_t note_off;	/* file offset of the note, for messages */
	struct sdt_fetch *argv;	/* argv[i] is arg<i+1> */
	int argc;
};

struct sdt_markers {
	struct sdt_marker *v;
	int nr, alloc;
	const struct arch *arch;	/* the file's machine */
};

/*
 * Reads every marker of an ELF executable or shared object.  A corrupt
 * note, a probe outside any executable PT_LOAD or a semaphore outside any
 * writable one fails the whole read: -EINVAL with err naming the file
 * and the note's offset.  No .note.stapsdt at all is not an error (nr 0).
 */
int sdt_markers_read(const char *path, struct sdt_markers *ms,
		     struct strbuf *err);
int sdt_markers_from_elf(Elf *elf, const char *path, struct sdt_markers *ms,
			 struct strbuf *err);
void sdt_markers_release(struct sdt_markers *ms);

/*
 * The --sdt listing of the markers of ms matching the globs (NULL: all):
 * event, provider, name, offsets, arguments, fetchargs and the arguments
 * left out, for each.  Returns how many matched.
 */
int sdt_markers_describe(const struct sdt_markers *ms, const char *provider,
			 const char *name, struct strbuf *out);
/*
 * sdt_markers_describe() of the markers of the binary at path (--sdt).
 * How many matched, or the -errno of reading them with err set.
 */
int sdt_markers_list(const char *path, const char *provider, const char *name,
		     struct strbuf *out, struct strbuf *err);

/* A user's request about one argument: [NAME=]argN[:TYPE]. */
struct sdt_user_arg {
	char *name;		/* NULL: keep argN */
	int index;		/* N, from 1 */
	char *type;		/* NULL: the note's; "string"/"ustring": dereference */
};

int sdt_user_arg_parse(const char *text, struct sdt_user_arg *ua,
		       struct strbuf *err);
void sdt_user_arg_release(struct sdt_user_arg *ua);

/* What one add request selects: markers by glob, argument requests. */
struct sdt_request {
	char *provider, *name;
	struct sdt_user_arg *ua;
	int nua;
};

/*
 * The request of spec ("[%]sdt_PROVIDER:NAME") with the argument requests
 * args.  0, or -EINVAL with err saying why (rq is released then).
 */
int sdt_request_parse(struct sdt_request *rq, const char *spec,
		      const char *const *args, int nargs, struct strbuf *err);
void sdt_request_release(struct sdt_request *rq);

/*
 * "sdt_PROVIDER:NAME", "%sdt_PROVIDER:NAME" or "%PROVIDER:NAME"; both
 * parts may be fnmatch globs.  1 when spec has this form (and fills the
 * globs, free them), 0 when it is not an SDT spec, -EINVAL when it is
 * one but malformed (err set).
 */
int sdt_spec_parse(const char *spec, char **provider, char **name,
		   struct strbuf *err);
int sdt_marker_matches(const struct sdt_marker *m, const char *provider,
		       const char *name);

/*
 * Group "sdt_PROVIDER" and event NAME of marker i, where the k-th site
 * (k >= 1) sharing provider and name gets "NAME_k".  Characters outside
 * [A-Za-z0-9_] become '_'.  -EINVAL when the result is no valid name.
 */
int sdt_marker_event(const struct sdt_markers *ms, int i, struct strbuf *group,
		     struct strbuf *event, struct strbuf *err);

/*
 * " arg1=FETCH:TYPE ..." for marker m with the user's requests applied.
 * Arguments that cannot be expressed are left out (keeping the others'
 * numbers) with a line in warn each.  -EINVAL with err when a request
 * names a missing argument or asks for a string of a non-pointer.
 */
int sdt_marker_fetchargs(const struct sdt_marker *m,
			 const struct sdt_user_arg *ua, int nua,
			 struct strbuf *out, struct strbuf *warn,
			 struct strbuf *err);

/*
 * "p:GROUP/EVENT PATH:0xOFF[(0xSEM)] ARGS": the semaphore only with
 * ref_ctr (the kernel advertises "(ref_ctr_offset)"); without it warn
 * says the guarded code will not run.
 */
int sdt_marker_definition(const struct sdt_marker *m, const char *path,
			  const char *group, const char *event, int ref_ctr,
			  const struct sdt_user_arg *ua, int nua,
			  struct strbuf *def, struct strbuf *warn,
			  struct strbuf *err);

/*
 * 1 when a uprobe in defs sits at m's place in path with another (or no)
 * ref_ctr_offset than the definition we would write: the kernel refuses
 * ours with a bare EINVAL then ("Reference counter offset mismatch" in
 * dmesg only).  who gets its GROUP:EVENT.
 */
int sdt_ref_ctr_conflict(const struct probe_defs *defs, const char *path,
			 const struct sdt_marker *m, int ref_ctr,
			 struct strbuf *who);

#endif
