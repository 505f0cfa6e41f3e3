/* tests/fuzz/fuzz-journal.c: the reader of apply's write-ahead journal on arbitrary bytes */
#include "config.h"

#include "fuzz.h"
#include "journal.h"
#include "util.h"

/*
 * Input: a journal file. Checked: an error has a message and returns no
 * journal; a parsed journal has only clean /sys paths (rollback writes
 * them, of the knob registry), values the knob takes, runs in sequence and
 * values of at most 4096 bytes; it is torn exactly when the input does not
 * end in a newline, and only in format 1; and the journal the writer's own
 * functions make of it (journal_header, journal_run_line, journal_set_line,
 * journal_end_line) parses back to the same entries.
 */

#define MAX_INPUT (256 * 1024)

static void check_same(const struct journal *a, const struct journal *b)
{
        fuzz_assert(a->n == b->n && a->runs == b->runs, "%zu entries in %u runs became %zu in %u", a->n, a->runs, b->n,
                    b->runs);
        for (size_t i = 0; i < a->n; i++)
                fuzz_assert(streq(a->v[i].path, b->v[i].path) && streq(a->v[i].old, b->v[i].old) &&
                            streq(a->v[i].new, b->v[i].new) && a->v[i].run == b->v[i].run,
                            "entry %zu changed: %s", i, a->v[i].path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        struct journal *j = NULL, *j2 = NULL;
        struct xerror e = {}, e2 = {};
        struct strbuf sb = {};
        size_t k = 0;
        int r;

        if (size > MAX_INPUT)
                return 0;
        r = journal_parse("fuzz.journal", (const char *) data, size, &j, &e);
        if (r < 0) {
                fuzz_assert(r == -EINVAL && e.message && e.message[0], "error %d without a message", r);
                fuzz_assert(!j, "an error returned a journal");
                xerror_done(&e);
                return 0;
        }
        fuzz_assert(j && !e.message, "parsed with a message: %s", e.message);
        fuzz_assert(j->torn == (size > 0 && data[size - 1] != '\n'), "torn is %d", j->torn);
        fuzz_assert(j->format == 1 || !j->torn, "a format 2 journal cut short was accepted");
        for (size_t i = 0; i < j->n; i++) {
                const struct journal_entry *x = &j->v[i];
                fuzz_assert(journal_value_ok(x->path, x->old, true) && journal_value_ok(x->path, x->new, false),
                            "values of %s not the knob's", x->path);
                fuzz_assert(journal_path_ok(x->path) &&
                            (startswith(x->path, "/sys/") || startswith(x->path, "/proc/sys/")) && !strstr(x->path, "/../") &&
                            !strstr(x->path, "/./"), "path %s", x->path);
                fuzz_assert(x->old && x->new && strlen(x->old) <= 4096 && strlen(x->new) <= 4096, "values of %s",
                            x->path);
                fuzz_assert(x->run >= 1 && x->run <= j->runs && (i == 0 || x->run >= j->v[i - 1].run),
                            "entry %zu in run %u of %u", i, x->run, j->runs);
        }

        /* written again by the writer's functions, read again */
        {
                _cleanup_free_ char *h = journal_header();
                sb_append(&sb, h);
        }
        for (unsigned run = 1; run <= j->runs; run++) {
                _cleanup_free_ char *l = journal_run_line(run, 1764763200, "fuzz");
                sb_append(&sb, l);
                for (; k < j->n && j->v[k].run == run; k++) {
                        _cleanup_free_ char *s = journal_set_line(j->v[k].path, j->v[k].old, j->v[k].new);
                        sb_append(&sb, s);
                }
        }
        {
                _cleanup_free_ char *end = journal_end_line(sb_str(&sb), sb.len);
                sb_append(&sb, end);
        }
        r = journal_parse("again", sb_str(&sb), sb.len, &j2, &e2);
        fuzz_assert(r == 0, "the rewritten journal does not parse: %s\n%s", strempty(e2.message), sb_str(&sb));
        fuzz_assert(!j2->torn, "the rewritten journal is torn");
        check_same(j, j2);

        sb_free(&sb);
        journal_free(j);
        journal_free(j2);
        return 0;
}
