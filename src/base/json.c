/* json.c: a small streaming JSON writer (two-space indent, one member a line) */
#include "config.h"

#include "base/json.h"

void json_init(struct json *j, FILE *f)
{
        *j = (struct json) { .f = f, .first = true };
}

static void indent(struct json *j)
{
        fputc('\n', j->f);
        for (int i = 0; i < j->depth; i++)
                fputs("  ", j->f);
}

/* separator and indentation before a value or a key */
static void pre(struct json *j)
{
        if (j->after_key) {
                j->after_key = false;
                return;
        }
        if (j->depth > 0) {
                if (!j->first)
                        fputc(',', j->f);
                indent(j);
        }
        j->first = false;
}

static void open_(struct json *j, char c)
{
        pre(j);
        fputc(c, j->f);
        j->depth++;
        j->first = true;
}

static void close_(struct json *j, char c)
{
        j->depth--;
        if (!j->first)
                indent(j);
        fputc(c, j->f);
        j->first = false;
}

void json_begin_object(struct json *j) { open_(j, '{'); }
void json_end_object(struct json *j) { close_(j, '}'); }
void json_begin_array(struct json *j) { open_(j, '['); }
void json_end_array(struct json *j) { close_(j, ']'); }

/* length of the valid UTF-8 sequence at p, 0 if invalid */
static size_t utf8_len(const unsigned char *p)
{
        size_t n;
        unsigned cp;

        if (p[0] < 0x80)
                return 1;
        if ((p[0] & 0xe0) == 0xc0) { n = 2; cp = p[0] & 0x1f; }
        else if ((p[0] & 0xf0) == 0xe0) { n = 3; cp = p[0] & 0x0f; }
        else if ((p[0] & 0xf8) == 0xf0) { n = 4; cp = p[0] & 0x07; }
        else return 0;
        for (size_t i = 1; i < n; i++) {
                if ((p[i] & 0xc0) != 0x80)
                        return 0;
                cp = cp << 6 | (p[i] & 0x3f);
        }
        if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
            cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
                return 0;
        return n;
}

bool json_utf8_valid(const char *s)
{
        for (const unsigned char *p = (const unsigned char *) s; *p;) {
                size_t n = utf8_len(p);
                if (n == 0)
                        return false;
                p += n;
        }
        return true;
}

/* JSON string; bytes that are not UTF-8 (odd sysfs strings) become U+FFFD */
static void put_escaped(FILE *f, const char *s)
{
        fputc('"', f);
        for (const unsigned char *p = (const unsigned char *) s; *p; p++) {
                switch (*p) {
                case '"': fputs("\\\"", f); break;
                case '\\': fputs("\\\\", f); break;
                case '\n': fputs("\\n", f); break;
                case '\t': fputs("\\t", f); break;
                case '\r': fputs("\\r", f); break;
                default:
                        if (*p < 0x20 || *p == 0x7f)
                                fprintf(f, "\\u%04x", *p);
                        else if (*p < 0x80)
                                fputc(*p, f);
                        else {
                                size_t n = utf8_len(p);
                                if (n == 0)
                                        fputs("\\ufffd", f);
                                else {
                                        fwrite(p, 1, n, f);
                                        p += n - 1;
                                }
                        }
                }
        }
        fputc('"', f);
}

void json_key(struct json *j, const char *key)
{
        pre(j);
        put_escaped(j->f, key);
        fputs(": ", j->f);
        j->after_key = true;
}

void json_string(struct json *j, const char *s)
{
        pre(j);
        if (s)
                put_escaped(j->f, s);
        else
                fputs("null", j->f);
}

void json_int(struct json *j, long long v)
{
        pre(j);
        fprintf(j->f, "%lld", v);
}

void json_bool(struct json *j, bool v)
{
        pre(j);
        fputs(v ? "true" : "false", j->f);
}

void json_null(struct json *j)
{
        pre(j);
        fputs("null", j->f);
}

void json_milli(struct json *j, long long milli)
{
        unsigned long long a = milli < 0 ? 0ULL - (unsigned long long) milli : (unsigned long long) milli;

        pre(j);
        /* integer arithmetic: no locale's decimal comma in JSON */
        fprintf(j->f, "%s%llu.%03llu", milli < 0 ? "-" : "", a / 1000, a % 1000);
}

void json_kv_milli(struct json *j, const char *key, long long milli) { json_key(j, key); json_milli(j, milli); }
void json_kv_string(struct json *j, const char *key, const char *s) { json_key(j, key); json_string(j, s); }
void json_kv_int(struct json *j, const char *key, long long v) { json_key(j, key); json_int(j, v); }
void json_kv_bool(struct json *j, const char *key, bool v) { json_key(j, key); json_bool(j, v); }

void json_kv_int_or_null(struct json *j, const char *key, bool have, long long v)
{
        json_key(j, key);
        if (have)
                json_int(j, v);
        else
                json_null(j);
}

void json_kv_milli_or_null(struct json *j, const char *key, bool have, long long milli)
{
        json_key(j, key);
        if (have)
                json_milli(j, milli);
        else
                json_null(j);
}

void json_finish(struct json *j)
{
        fputc('\n', j->f);
}
