/* status.c: the status file (status.h): rendered as flat JSON, one key a
 * line, written atomically through the reader, and read back by verify as a
 * user, idlecfg facts and the next writing run */
#include "config.h"

#include <stdlib.h>

#include "base/json.h"
#include "state/manifest.h"
#include "state/records.h"
#include "state/status.h"

#define STATUS_MAX (64u << 10)

void status_done(struct status *s)
{
        free(s->verb);
        free(s->version);
        free(s->profile);
        free(s->kernel);
        free(s->power_source);
        free(s->boot_steps);
        *s = (struct status) {};
}

static void kv_count(struct json *j, const char *key, long long v)
{
        json_kv_int_or_null(j, key, v >= 0, v);
}

char *status_render(const struct status *s)
{
        char *text = NULL, stamp[32] = "";
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);
        struct json j;
        time_t t = (time_t) s->time;
        struct tm tm;

        if (!f)
                abort();        /* as xmalloc(): no memory */
        if (gmtime_r(&t, &tm))
                strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", &tm);
        json_init(&j, f);
        json_begin_object(&j);
        json_kv_int(&j, "schema", 1);
        json_kv_string(&j, "verb", s->verb);
        json_kv_int(&j, "time", s->time);
        json_kv_string(&j, "time_utc", stamp);
        json_kv_string(&j, "version", s->version);
        json_kv_bool(&j, "installed", s->installed);
        json_kv_string(&j, "profile", s->profile);
        json_kv_string(&j, "kernel", s->kernel);
        json_kv_bool(&j, "applied", s->applied);
        json_kv_string(&j, "power_source", s->power_source);
        json_kv_bool(&j, "power_source_forced", s->power_source_forced);
        json_kv_int_or_null(&j, "compared", s->compared > 0, s->compared);
        kv_count(&j, "settings", s->settings);
        kv_count(&j, "match", s->match);
        kv_count(&j, "drift", s->drift);
        kv_count(&j, "missing", s->missing);
        kv_count(&j, "later", s->later);
        json_kv_bool(&j, "boot_step_pending", s->boot_step_pending);
        json_kv_string(&j, "boot_steps", s->boot_steps);
        json_end_object(&j);
        json_finish(&j);
        if (fclose(f) != 0)
                abort();
        return text;
}

/* a JSON string value as status_render() writes it (json.c's escapes): the
 * text, or NULL when it is not one */
static char *unquote(const char *v)
{
        struct strbuf b = {};

        if (*v++ != '"')
                return NULL;
        for (; *v && *v != '"'; v++) {
                char c = *v;
                if (c == '\\') {
                        switch (*++v) {
                        case '"': case '\\': case '/': c = *v; break;
                        case 'n': c = '\n'; break;
                        case 't': c = '\t'; break;
                        case 'r': c = '\r'; break;
                        case 'b': c = '\b'; break;
                        case 'f': c = '\f'; break;
                        case 'u': {
                                char hex[5] = {};
                                unsigned long u;
                                memcpy(hex, v + 1, strnlen(v + 1, 4));
                                u = strtoul(hex, NULL, 16);
                                if (strlen(hex) != 4 || u == 0 || u >= 0x80) {
                                        sb_free(&b);
                                        return NULL;
                                }
                                c = (char) u;
                                v += 4;
                                break;
                        }
                        default:
                                sb_free(&b);
                                return NULL;
                        }
                }
                sb_appendf(&b, "%c", c);
        }
        if (*v != '"' || v[1]) {
                sb_free(&b);
                return NULL;
        }
        return sb_steal(&b);
}

static int take_line(struct status *s, const char *key, const char *v)
{
        static const struct {
                const char *key;
                size_t off;
        } counts[] = {
                { "time", offsetof(struct status, time) },
                { "compared", offsetof(struct status, compared) },
                { "settings", offsetof(struct status, settings) },
                { "match", offsetof(struct status, match) },
                { "drift", offsetof(struct status, drift) },
                { "missing", offsetof(struct status, missing) },
                { "later", offsetof(struct status, later) },
        };
        static const struct {
                const char *key;
                size_t off;
        } strings[] = {
                { "verb", offsetof(struct status, verb) },
                { "version", offsetof(struct status, version) },
                { "profile", offsetof(struct status, profile) },
                { "kernel", offsetof(struct status, kernel) },
                { "power_source", offsetof(struct status, power_source) },
                { "boot_steps", offsetof(struct status, boot_steps) },
        };
        static const struct {
                const char *key;
                size_t off;
        } bools[] = {
                { "installed", offsetof(struct status, installed) },
                { "applied", offsetof(struct status, applied) },
                { "power_source_forced", offsetof(struct status, power_source_forced) },
                { "boot_step_pending", offsetof(struct status, boot_step_pending) },
        };

        for (size_t i = 0; i < ELEMENTSOF(counts); i++)
                if (streq(key, counts[i].key)) {
                        long long *p = (long long *) ((char *) s + counts[i].off);
                        char *end;
                        if (streq(v, "null")) {
                                *p = streq(key, "compared") ? 0 : -1;
                                return 0;
                        }
                        errno = 0;
                        *p = strtoll(v, &end, 10);
                        return errno || end == v || *end || *p < 0 ? -EBADMSG : 0;
                }
        for (size_t i = 0; i < ELEMENTSOF(strings); i++)
                if (streq(key, strings[i].key)) {
                        char **p = (char **) ((char *) s + strings[i].off);
                        if (streq(v, "null"))
                                return 0;
                        free(*p);
                        *p = unquote(v);
                        return *p ? 0 : -EBADMSG;
                }
        for (size_t i = 0; i < ELEMENTSOF(bools); i++)
                if (streq(key, bools[i].key)) {
                        bool *p = (bool *) ((char *) s + bools[i].off);
                        if (!streq(v, "true") && !streq(v, "false"))
                                return -EBADMSG;
                        *p = streq(v, "true");
                        return 0;
                }
        return 0;       /* a key of a later schema: not ours to judge */
}

/* one line "  \"KEY\": VALUE," of the object */
static int parse_line(struct status *s, char *line)
{
        char *key, *end, *v;

        line = strstrip(line);
        if (streq(line, "{") || streq(line, "}") || !*line)
                return 0;
        if (*line != '"' || !(end = strstr(line + 1, "\": ")))
                return -EBADMSG;
        key = line + 1;
        *end = '\0';
        v = end + 3;
        if (endswith_str(v, ","))
                v[strlen(v) - 1] = '\0';
        return take_line(s, key, v);
}

int status_read(const struct rootfs *rfs, struct status *ret)
{
        _cleanup_free_ char *text = NULL;
        struct status s = { .settings = -1, .match = -1, .drift = -1, .missing = -1, .later = -1 };
        size_t len;
        int r = rootfs_read_file(rfs, STATUS_PATH, ROOTFS_NOFOLLOW, STATUS_MAX, &text, &len, NULL);

        if (r < 0)
                return r;
        if (strlen(text) != len || !startswith(text, "{\n") || !strstr(text, "\n  \"schema\": 1,\n"))
                return -EBADMSG;
        for (char *save = NULL, *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
                r = parse_line(&s, line);
                if (r < 0) {
                        status_done(&s);
                        return r;
                }
        }
        *ret = s;
        return 0;
}

int status_write(const struct rootfs *rfs, const struct status *s, struct xerror *ret_error)
{
        _cleanup_free_ char *text = status_render(s);
        struct stat st;

        if (rootfs_lstat(rfs, STATE_DIR, &st) < 0 || !S_ISDIR(st.st_mode))
                return -ENOENT;
        return records_write(rfs, STATUS_PATH, text, strlen(text), ret_error);
}

int status_remove(const struct rootfs *rfs)
{
        int r = rootfs_unlink(rfs, STATUS_PATH);

        if (r < 0)
                return r;
        r = rootfs_remove_temps(rfs, STATUS_PATH);
        return r < 0 ? r : 0;
}
