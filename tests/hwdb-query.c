/* tests/hwdb-query.c: print our hwdb answers like `systemd-hwdb --root ROOT query` (test driver) */
#include "config.h"

#include <getopt.h>

#include "db/hwdb-load.h"
#include "db/hwdb.h"
#include "base/util.h"

static void usage(FILE *f)
{
        fputs("Usage: hwdb-query [--strict] [--sources] [--warnings] [--keys P,P...] [-f FILE] ROOT [MODALIAS...]\n"
              "Print KEY=VALUE for each MODALIAS in systemd-hwdb's order. With more than one\n"
              "modalias, each answer starts with a line \"# MODALIAS\". -f reads modaliases,\n"
              "one a line, from FILE. --sources adds \"<TAB>FILE:LINE<TAB>MATCH\" to each line.\n"
              "--keys loads with hwdb_load_keys() for keys starting with one of the prefixes\n"
              "(comma-separated) and prints only those keys.\n", f);
}

static char **keys;

static bool wanted(const char *key)
{
        if (!keys)
                return true;
        for (char **k = keys; *k; k++)
                if (startswith(key, *k))
                        return true;
        return false;
}

static void answer(const struct hwdb *h, const char *modalias, bool header, bool sources)
{
        _cleanup_free_ struct hwdb_property *props = NULL;
        size_t n;
        int r;

        if (header)
                printf("# %s\n", modalias);
        r = hwdb_query(h, modalias, &props, &n);
        if (r < 0) {
                fprintf(stderr, "hwdb-query: %s: %s\n", modalias, strerror(-r));
                exit(EXIT_FAILURE);
        }
        for (size_t i = 0; i < n; i++) {
                if (!wanted(props[i].key))
                        continue;
                if (sources)
                        printf("%s=%s\t%s:%u\t%s\n", props[i].key, props[i].value, props[i].file,
                               props[i].line, props[i].match);
                else
                        printf("%s=%s\n", props[i].key, props[i].value);
        }
}

int main(int argc, char **argv)
{
        static const struct option options[] = {
                { "strict", no_argument, NULL, 'S' },
                { "sources", no_argument, NULL, 's' },
                { "warnings", no_argument, NULL, 'w' },
                { "file", required_argument, NULL, 'f' },
                { "keys", required_argument, NULL, 'k' },
                { "help", no_argument, NULL, 'h' },
                {}
        };
        _cleanup_(hwdb_freep) struct hwdb *h = NULL;
        struct xerror err = {};
        const char *list = NULL;
        bool sources = false, warnings = false, header;
        unsigned flags = 0;
        size_t n_list = 0;
        int c, r;

        _cleanup_free_ char *key_text = NULL;
        size_t n_keys = 0;

        while ((c = getopt_long(argc, argv, "f:hk:Ssw", options, NULL)) >= 0)
                switch (c) {
                case 'S': flags |= HWDB_STRICT; break;
                case 's': sources = true; break;
                case 'w': warnings = true; break;
                case 'f': list = optarg; break;
                case 'k':
                        free(key_text);
                        key_text = xstrdup(optarg);
                        for (char *t = strtok(key_text, ","); t; t = strtok(NULL, ",")) {
                                keys = xrealloc(keys, (n_keys + 2) * sizeof(*keys));
                                keys[n_keys++] = t;
                                keys[n_keys] = NULL;
                        }
                        break;
                case 'h': usage(stdout); return EXIT_SUCCESS;
                default: usage(stderr); return 2;
                }
        if (optind >= argc) {
                usage(stderr);
                return 2;
        }

        r = hwdb_load_keys(argv[optind], flags, (const char *const *) keys, &h, &err);
        if (r < 0) {
                _cleanup_free_ char *msg = xerror_format(&err);
                fprintf(stderr, "hwdb-query: %s\n", msg);
                xerror_done(&err);
                return EXIT_FAILURE;
        }
        if (warnings) {
                const struct xerror *w;
                size_t n;

                w = hwdb_warnings(h, &n);
                for (size_t i = 0; i < n; i++) {
                        _cleanup_free_ char *msg = xerror_format(&w[i]);
                        fprintf(stderr, "%s\n", msg);
                }
        }

        if (list) {
                _cleanup_fclose_ FILE *f = streq(list, "-") ? NULL : fopen(list, "re");
                FILE *in = streq(list, "-") ? stdin : f;
                _cleanup_free_ char *line = NULL;
                size_t cap = 0;
                ssize_t len;

                if (!in) {
                        fprintf(stderr, "hwdb-query: %s: %s\n", list, strerror(errno));
                        return EXIT_FAILURE;
                }
                while ((len = getline(&line, &cap, in)) >= 0) {
                        if (len > 0 && line[len - 1] == '\n')
                                line[len - 1] = '\0';
                        answer(h, line, true, sources);
                        n_list++;
                }
        }
        header = list || argc - optind > 2;
        for (int i = optind + 1; i < argc; i++)
                answer(h, argv[i], header, sources);
        return fflush(stdout) == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
