/* tests/fuzz/fuzz-journal.c: the reader of apply's write-ahead journal on arbitrary bytes */
#include "config.h"

#include "fuzz.h"
#include "state/journal.h"
#include "base/util.h"

/*
 * Input: a journal file. Checked: an error has a message and returns no
 * journal; a parsed journal has only clean /sys paths (rollback writes
 * them, of the knob registry), values the knob takes, runs in sequence and
 * values of at most 4096 bytes; it is torn exactly when the input does not
 * end in a newline, and only in format 1; the journal the writer makes of it
 * (journal_text_with_run() without a run of its own) parses back to the same
 * entries, in as many runs as have one; and with a run that writes every
 * path of it again it parses back with at most two records per path, the
 * first one's old value kept.
 */

#define MAX_INPUT (256 * 1024)

static void check_same(const struct journal *a, const struct journal *b)
{
        unsigned runs = 0;

        for (size_t i = 0; i < a->n; i++)
                runs += i == 0 || a->v[i].run != a->v[i - 1].run;
        fuzz_assert(a->n == b->n && b->runs == runs, "%zu entries in %u runs became %zu in %u", a->n, runs, b->n,
                    b->runs);
        for (size_t i = 0; i < a->n; i++)
                fuzz_assert(streq(a->v[i].path, b->v[i].path) && streq(a->v[i].old, b->v[i].old) &&
                            streq(a->v[i].new, b->v[i].new) &&
                            (i == 0 || (a->v[i].run == a->v[i - 1].run) == (b->v[i].run == b->v[i - 1].run)),
                            "entry %zu changed: %s", i, a->v[i].path);
}

/* TEXT, a journal the writer made, parses */
static struct journal *parse_again(const char *text)
{
        struct journal *j = NULL;
        struct xerror e = {};
        int r = journal_parse("again", text, strlen(text), &j, &e);

        fuzz_assert(r == 0, "the rewritten journal does not parse: %s\n%s", strempty(e.message), text);
        fuzz_assert(!j->torn && j->format == 2, "the rewritten journal is torn or not format 2");
        return j;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        struct journal *j = NULL, *j2 = NULL;
        struct xerror e = {};
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

        /* written again by the writer, read again */
        {
                _cleanup_free_ char *text = journal_text_with_run(j, NULL, 0, 0, "fuzz");
                j2 = parse_again(text);
                check_same(j, j2);
                journal_free(j2);
        }
        /* a run that writes every path again, each with its last new value (the chain of a switch) */
        {
                _cleanup_free_ struct journal_entry *add = xcalloc(j->n + 1, sizeof(*add));
                _cleanup_free_ char *text = NULL;
                size_t n_add = 0;
                for (size_t i = j->n; i-- > 0;) {
                        bool seen = false;
                        for (size_t a = 0; a < n_add && !seen; a++)
                                seen = streq(add[a].path, j->v[i].path);
                        if (!seen)
                                add[n_add++] = (struct journal_entry) { .path = j->v[i].path, .old = j->v[i].new,
                                                                        .new = j->v[i].new };
                }
                text = journal_text_with_run(j, add, n_add, 1764763200, "fuzz");
                j2 = parse_again(text);
                for (size_t a = 0; a < n_add; a++) {
                        size_t count = 0, first = j2->n, orig = 0;
                        for (size_t i = 0; i < j2->n; i++)
                                if (streq(j2->v[i].path, add[a].path) && count++ == 0)
                                        first = i;
                        while (!streq(j->v[orig].path, add[a].path))
                                orig++;
                        fuzz_assert(count >= 1 && count <= 2 && streq(j2->v[first].old, j->v[orig].old),
                                    "%s: %zu records, the first old value not kept", add[a].path, count);
                }
        }
        journal_free(j);
        journal_free(j2);
        return 0;
}
