/* tests/fuzz/fuzz-manifest.c: the reader and writer of install's manifest on arbitrary bytes */
#include "config.h"

#include <sys/stat.h>

#include "fuzz.h"
#include "state/manifest.h"
#include "base/util.h"

/*
 * Input: a manifest file. Checked: an error has a message and returns no
 * manifest; a parsed manifest (which rollback acts on) has version, profile
 * and fingerprint, clean absolute paths of install's targets only,
 * valid checksums and modes, nothing twice; manifest_format() of it parses
 * back and formats to the same text; and the file list survives
 * manifest_find/add/remove.
 */

#define MAX_INPUT (256 * 1024)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        struct manifest *m = NULL, *m2 = NULL;
        struct xerror e = {}, e2 = {};
        _cleanup_free_ char *text = NULL, *text2 = NULL;
        int r;

        if (size > MAX_INPUT)
                return 0;
        r = manifest_parse("fuzz.manifest", (const char *) data, size, &m, &e);
        if (r < 0) {
                fuzz_assert(r == -EINVAL && e.message && e.message[0], "error %d without a message", r);
                fuzz_assert(!m, "an error returned a manifest");
                xerror_done(&e);
                return 0;
        }
        fuzz_assert(m && !e.message, "parsed with a message: %s", e.message);
        fuzz_assert(m->version && m->profile && m->fingerprint, "version, profile or fingerprint missing");
        fuzz_assert(!m->cmdline_target || path_is_clean(m->cmdline_target), "cmdline %s", m->cmdline_target);
        for (size_t i = 0; i < m->n_dirs; i++) {
                fuzz_assert(path_is_clean(m->dirs[i]), "dir %s", m->dirs[i]);
                for (size_t k = 0; k < i; k++)
                        fuzz_assert(!streq(m->dirs[i], m->dirs[k]), "dir %s twice", m->dirs[i]);
        }
        for (size_t i = 0; i < m->inputs.n; i++)
                for (size_t k = 0; k < i; k++)
                        fuzz_assert(!streq(m->inputs.v[i].key, m->inputs.v[k].key), "input %s twice",
                                    m->inputs.v[i].key);
        for (size_t i = 0; i < m->n_files; i++) {
                const struct manifest_file *f = &m->files[i];
                fuzz_assert(path_is_clean(f->path) && !startswith(f->path, STATE_DIR "/") && !strstr(f->path, "/../"),
                            "file %s", f->path);
                fuzz_assert(manifest_path_allowed(f->path), "file %s is no target of install", f->path);
                fuzz_assert(sha_is_valid(f->sha) && f->mode <= 07777, "file %s: checksum or mode", f->path);
                fuzz_assert(!f->pending || !f->pending_was_ours || sha_is_valid(f->pending_sha),
                            "file %s: pending checksum", f->path);
                fuzz_assert(!f->prev_exists || (sha_is_valid(f->prev_sha) && f->prev_mode <= 07777),
                            "file %s: the replaced file's checksum or mode", f->path);
                fuzz_assert(manifest_find(m, f->path) == f, "file %s twice", f->path);
        }

        /* the writer's text of it reads back as the same manifest */
        text = manifest_format(m);
        r = manifest_parse("again", text, strlen(text), &m2, &e2);
        fuzz_assert(r == 0, "the formatted manifest does not parse: %s\n%s", strempty(e2.message), text);
        text2 = manifest_format(m2);
        fuzz_assert(streq(text, text2), "format, parse, format changed the text:\n%s\n----\n%s", text, text2);

        /* the file list: adding a listed path finds it, removing empties the list */
        for (size_t i = 0; i < m2->n_files; i++)
                fuzz_assert(manifest_add_file(m2, m2->files[i].path) == &m2->files[i], "add of a listed file");
        while (m2->n_files > 0) {
                _cleanup_free_ char *p = xstrdup(m2->files[m2->n_files / 2].path);
                size_t before = m2->n_files;
                manifest_remove_file(m2, p);
                fuzz_assert(m2->n_files == before - 1 && !manifest_find(m2, p), "remove %s", p);
        }

        manifest_free(m);
        manifest_free(m2);
        return 0;
}
