/* json.h: a small streaming JSON writer with stable, pretty output */
#pragma once

#include <stdbool.h>
#include <stdio.h>

struct json {
        FILE *f;
        int depth;
        bool first;     /* no element written yet at this depth */
        bool after_key; /* a key was written, its value comes next */
};

void json_init(struct json *j, FILE *f);
void json_begin_object(struct json *j);
void json_end_object(struct json *j);
void json_begin_array(struct json *j);
void json_end_array(struct json *j);
void json_key(struct json *j, const char *key);
void json_string(struct json *j, const char *s);   /* NULL is written as null */
/* S is UTF-8 throughout: json_string() writes it exactly (else a byte that
 * is not becomes U+FFFD) */
bool json_utf8_valid(const char *s);
void json_int(struct json *j, long long v);
void json_bool(struct json *j, bool v);
void json_null(struct json *j);
/* a number with three decimals from thousandths: 1234 -> 1.234 */
void json_milli(struct json *j, long long milli);
/* key + value in one */
void json_kv_string(struct json *j, const char *key, const char *s);
void json_kv_int(struct json *j, const char *key, long long v);
void json_kv_milli(struct json *j, const char *key, long long milli);
void json_kv_bool(struct json *j, const char *key, bool v);
/* KEY: V when HAVE, else null (a counter that is absent is never shown as 0) */
void json_kv_int_or_null(struct json *j, const char *key, bool have, long long v);
void json_kv_milli_or_null(struct json *j, const char *key, bool have, long long milli);
void json_finish(struct json *j);
