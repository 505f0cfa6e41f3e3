/* grubenv.c: GRUB's default files read as grub-mkconfig sources them, without running them */
#include "config.h"

#include <ctype.h>

#include "root/grubenv.h"
#include "root/targets.h"

#define GRUB_DEFAULT_PATH "/etc/default/grub"
#define GRUB_DEFAULT_DIR "/etc/default/grub.d"
#define GRUB_FILE_MAX (1024u * 1024u)

static void warn(struct grubenv *env, const char *fmt, ...) _printf_(2, 3);
static void warn(struct grubenv *env, const char *fmt, ...)
{
        va_list ap;

        va_start(ap, fmt);
        env->warnings = xrealloc(env->warnings, (env->n_warnings + 1) * sizeof(char *));
        env->warnings[env->n_warnings++] = xvasprintf(fmt, ap);
        va_end(ap);
}

static struct grubvar *var_find(const struct grubenv *env, const char *name, size_t n)
{
        for (size_t i = 0; i < env->n_vars; i++)
                if (strlen(env->vars[i].name) == n && strncmp(env->vars[i].name, name, n) == 0)
                        return &env->vars[i];
        return NULL;
}

const char *grubenv_get(const struct grubenv *env, const char *name)
{
        const struct grubvar *v = var_find(env, name, strlen(name));

        return v ? v->value : "";
}

static void var_unexpanded_free(struct grubvar *v)
{
        for (size_t i = 0; i < v->n_unexpanded; i++)
                free(v->unexpanded[i]);
        free(v->unexpanded);
        v->unexpanded = NULL;
        v->n_unexpanded = 0;
}

static void var_set(struct grubenv *env, const char *name, size_t n, char *value)
{
        struct grubvar *v = var_find(env, name, n);

        if (!v) {
                env->vars = xrealloc(env->vars, (env->n_vars + 1) * sizeof(*env->vars));
                v = &env->vars[env->n_vars++];
                *v = (struct grubvar) { .name = xstrndup(name, n) };
        }
        free(v->value);
        v->value = value;
        var_unexpanded_free(v);
}

static size_t name_len(const char *s)
{
        size_t n = 0;

        if (!isalpha((unsigned char) *s) && *s != '_')
                return 0;
        while (isalnum((unsigned char) s[n]) || s[n] == '_')
                n++;
        return n;
}

struct lexer {
        struct grubenv *env;
        const char *name;       /* the file, for messages */
        const char *p;
        unsigned line;
        unsigned braces;        /* { groups open */
        unsigned conds;         /* if, while, until, for, case open */
        unsigned func_braces;   /* in a function's body: the groups open before it, plus one */
        bool func_header;       /* "f()" seen: the next command is its body */
        bool stop;              /* return or exit: the rest of the file is not read */
        char *heredoc;          /* the word that ends the here-document of this line */
        bool heredoc_tabs;      /* <<-: its lines may start with tabs */
        /* in an assignment: what its value could not expand, held for the
         * variable (said when it reaches the command line) */
        bool holding;
        char **held;
        size_t n_held;
};

static void hold(struct lexer *l, char *msg)
{
        for (size_t i = 0; i < l->n_held; i++)
                if (streq(l->held[i], msg)) {
                        free(msg);
                        return;
                }
        l->held = xrealloc(l->held, (l->n_held + 1) * sizeof(char *));
        l->held[l->n_held++] = msg;
}

/* a value that cannot be expanded: said now, or held for the variable assigned */
static void warn_expand(struct lexer *l, const char *fmt, ...) _printf_(2, 3);
static void warn_expand(struct lexer *l, const char *fmt, ...)
{
        va_list ap;
        char *msg;

        va_start(ap, fmt);
        msg = xvasprintf(fmt, ap);
        va_end(ap);
        if (l->holding)
                hold(l, msg);
        else {
                warn(l->env, "%s", msg);
                free(msg);
        }
}

/* the value of V is used: what it could not expand comes with it */
static void use_var(struct lexer *l, const struct grubvar *v)
{
        for (size_t i = 0; l->holding && v && i < v->n_unexpanded; i++)
                hold(l, xstrdup(v->unexpanded[i]));
}

/* skip blanks and backslash-newline continuations */
static void skip_blanks(struct lexer *l)
{
        for (;;) {
                if (*l->p == ' ' || *l->p == '\t')
                        l->p++;
                else if (l->p[0] == '\\' && l->p[1] == '\n')
                        l->p += 2, l->line++;
                else
                        return;
        }
}

/* from OPEN to its CLOSE (quotes, ${...}, $(...), `...`), counting lines; false if unterminated */
static bool skip_to(struct lexer *l, char close, bool backslash)
{
        for (l->p++; *l->p && *l->p != close; l->p++) {
                if (backslash && *l->p == '\\' && l->p[1])
                        l->p++;
                if (*l->p == '\n')
                        l->line++;
        }
        if (!*l->p)
                return false;
        l->p++;
        return true;
}

/* over one word, quotes kept; false on an unterminated quote */
static bool lex_word(struct lexer *l)
{
        while (*l->p && !strchr(" \t\n;|&<>()", *l->p)) {
                switch (*l->p) {
                case '\\':
                        if (l->p[1] == '\n')
                                l->line++;
                        l->p += l->p[1] ? 2 : 1;
                        break;
                case '\'':
                        if (!skip_to(l, '\'', false))
                                return false;
                        break;
                case '"':
                        if (!skip_to(l, '"', true))
                                return false;
                        break;
                case '`':
                        if (!skip_to(l, '`', true))
                                return false;
                        break;
                case '$':
                        if (l->p[1] == '{' || l->p[1] == '(') {
                                l->p++;
                                if (!skip_to(l, *l->p == '{' ? '}' : ')', true))
                                        return false;
                        } else
                                l->p++;
                        break;
                default:
                        l->p++;
                }
        }
        return true;
}

/* $NAME, ${NAME} at *S: its value appended to SB; anything else that
 * expands to something only a shell knows is said once, and expands to nothing */
static void expand_dollar(struct lexer *l, unsigned line, const char **s, struct strbuf *sb)
{
        const char *p = *s + 1;
        size_t n;

        if ((n = name_len(p)) > 0) {
                const struct grubvar *v = var_find(l->env, p, n);
                use_var(l, v);
                sb_append(sb, v ? v->value : "");
                *s = p + n;
                return;
        }
        if (*p == '{') {
                const char *end = strchr(p, '}');
                n = name_len(p + 1);
                if (end && p + 1 + n == end && n > 0) {
                        const struct grubvar *v = var_find(l->env, p + 1, n);
                        use_var(l, v);
                        sb_append(sb, v ? v->value : "");
                        *s = end + 1;
                        return;
                }
                warn_expand(l, _("%s:%u: \"%.*s\" is not expanded: idlecfg reads only $VAR and ${VAR}, and assumes "
                               "it expands to nothing"), l->name, line, end ? (int) (end - *s + 1) : 2, *s);
                *s = end ? end + 1 : p + strlen(p);
                return;
        }
        if (*p == '(' || (*p && strchr("0123456789@*#?$!-", *p))) {
                warn_expand(l, _("%s:%u: \"$%c\" is not expanded: idlecfg does not run the target's shell code, "
                               "and assumes it expands to nothing"), l->name, line, *p);
                if (*p == '(') {
                        int depth = 0;
                        for (; *p; p++)
                                if (*p == '(')
                                        depth++;
                                else if (*p == ')' && --depth == 0)
                                        break;
                        *s = *p ? p + 1 : p;
                } else
                        *s = p + 1;
                return;
        }
        sb_putc(sb, '$');
        *s = p;
}

static void backquote(struct lexer *l, unsigned line, const char **s)
{
        const char *end = strchr(*s + 1, '`');

        warn_expand(l, _("%s:%u: a command substitution `...` is not run: idlecfg assumes it expands to nothing"),
             l->name, line);
        *s = end ? end + 1 : *s + strlen(*s);
}

/* the value of the raw word S (quotes, backslashes, expansions), as in an
 * assignment: no field splitting, no pathname expansion */
static char *expand(struct lexer *l, unsigned line, const char *s)
{
        struct strbuf sb = {};

        sb_append(&sb, "");
        while (*s) {
                switch (*s) {
                case '\\':
                        if (s[1] && s[1] != '\n')
                                sb_putc(&sb, s[1]);
                        s += s[1] ? 2 : 1;
                        break;
                case '\'':
                        for (s++; *s && *s != '\''; s++)
                                sb_putc(&sb, *s);
                        if (*s)
                                s++;
                        break;
                case '"':
                        for (s++; *s && *s != '"';) {
                                if (s[0] == '\\' && s[1] && strchr("$`\"\\\n", s[1])) {
                                        if (s[1] != '\n')
                                                sb_putc(&sb, s[1]);
                                        s += 2;
                                } else if (*s == '$')
                                        expand_dollar(l, line, &s, &sb);
                                else if (*s == '`')
                                        backquote(l, line, &s);
                                else
                                        sb_putc(&sb, *s++);
                        }
                        if (*s)
                                s++;
                        break;
                case '$':
                        expand_dollar(l, line, &s, &sb);
                        break;
                case '`':
                        backquote(l, line, &s);
                        break;
                default:
                        sb_putc(&sb, *s++);
                }
        }
        return sb_steal(&sb);
}

static bool is_assignment(const char *word)
{
        size_t n = name_len(word);

        return n > 0 && word[n] == '=';
}

/* the variables 10_linux gives the normal entries' linux line */
static bool is_cmdline_var(const char *name, size_t n)
{
        return (n == strlen("GRUB_CMDLINE_LINUX") && strncmp(name, "GRUB_CMDLINE_LINUX", n) == 0) ||
               (n == strlen("GRUB_CMDLINE_LINUX_DEFAULT") && strncmp(name, "GRUB_CMDLINE_LINUX_DEFAULT", n) == 0);
}

static void assign(struct lexer *l, unsigned line, const char *word)
{
        size_t n = name_len(word);
        struct grubvar *v = var_find(l->env, word, n);
        char *value;

        if (v && v->readonly) {
                warn(l->env, _("%s:%u: %.*s is readonly (%s): the shell of grub-mkconfig stops with an error "
                               "here; idlecfg keeps its value"), l->name, line, (int) n, word, v->readonly);
                return;
        }
        l->holding = true;
        value = expand(l, line, word + n + 1);
        l->holding = false;
        if (is_cmdline_var(word, n) && strchr(value, '\n') && !(v && strchr(v->value, '\n')))
                /* 10_linux echoes it into the linux line: the rest of the value
                 * is a line of grub.cfg of its own, a GRUB command, never the kernel's */
                warn(l->env, _("%s:%u: the value of %.*s spans lines: grub-mkconfig writes what follows its "
                               "first newline on a line of its own in grub.cfg, which the kernel does not get "
                               "(GRUB reads it as a command); idlecfg reads the kernel command line up to it"),
                     l->name, line, (int) n, word);
        var_set(l->env, word, n, value);
        if (is_cmdline_var(word, n)) {
                /* the kernel's command line: said now */
                for (size_t i = 0; i < l->n_held; i++) {
                        warn(l->env, "%s", l->held[i]);
                        free(l->held[i]);
                }
                free(l->held);
        } else {
                v = var_find(l->env, word, n);
                v->unexpanded = l->held;
                v->n_unexpanded = l->n_held;
        }
        l->held = NULL;
        l->n_held = 0;
}

/* readonly NAME[=VALUE]...: the value first, then no more assignments */
static void make_readonly(struct lexer *l, unsigned line, const char *word)
{
        size_t n = name_len(word);
        struct grubvar *v;

        if (!n || (word[n] && word[n] != '='))
                return;
        if (word[n] == '=')
                assign(l, line, word);
        v = var_find(l->env, word, n);
        if (!v) {
                var_set(l->env, word, n, xstrdup(""));
                v = var_find(l->env, word, n);
        }
        if (!v->readonly)
                v->readonly = xasprintf("%s:%u", l->name, line);
}

/* one simple command of the raw WORDS */
static void run_command(struct lexer *l, unsigned line, char **words, size_t n)
{
        static const char *const opens[] = { "if", "while", "until", "for", "case", "!" };
        static const char *const inner[] = { "then", "else", "elif", "do" };
        static const char *const closes[] = { "done", "fi", "esac" };
        bool func_body = l->func_header;
        size_t i = 0;

        l->func_header = false;
        /* a group runs what it holds, as it is (a function's body too, when
         * the function is called: never, here) */
        if (streq(words[0], "{") || streq(words[0], "}")) {
                if (streq(words[0], "{")) {
                        l->braces++;
                        if (func_body && !l->func_braces)
                                l->func_braces = l->braces;
                } else if (l->braces > 0) {
                        if (l->func_braces == l->braces)
                                l->func_braces = 0;
                        l->braces--;
                }
                if (n > 1)
                        run_command(l, line, words + 1, n - 1);
                return;
        }
        if (l->func_braces)
                return;         /* the body of a function: defined, not run */
        /* compound commands: their conditions are not run; the assignments in
         * them are read as if every one ran (said once, at the keyword that opens it) */
        for (size_t k = 0; k < ELEMENTSOF(opens); k++)
                if (streq(words[0], opens[k])) {
                        l->conds += !streq(words[0], "!");
                        warn(l->env, _("%s:%u: \"%s\" is not run: idlecfg does not run shell code, and reads the "
                                       "assignments inside it as if each one ran"), l->name, line, words[0]);
                        return;
                }
        for (size_t k = 0; k < ELEMENTSOF(closes); k++)
                if (streq(words[0], closes[k])) {
                        if (l->conds > 0)
                                l->conds--;
                        if (n > 1)
                                run_command(l, line, words + 1, n - 1);
                        return;
                }
        for (size_t k = 0; k < ELEMENTSOF(inner); k++)
                if (streq(words[0], inner[k])) {
                        if (n > 1)
                                run_command(l, line, words + 1, n - 1);
                        return;
                }
        /* return ends the sourced file, exit grub-mkconfig itself; inside a
         * condition idlecfg cannot tell whether it runs: said below */
        if (l->conds == 0 && (streq(words[0], "return") || streq(words[0], "exit"))) {
                l->stop = true;
                if (streq(words[0], "exit")) {
                        l->env->exited = true;
                        warn(l->env, _("%s:%u: \"exit\": grub-mkconfig stops here and makes no grub.cfg; idlecfg "
                                       "reads nothing after it"), l->name, line);
                }
                return;
        }

        while (i < n && is_assignment(words[i]))
                i++;
        if (i == n) {
                /* only assignments: they stay, in order; a later one sees an earlier one */
                for (i = 0; i < n; i++)
                        assign(l, line, words[i]);
                return;
        }
        if (i == 0 && streq(words[0], "export")) {
                for (i = 1; i < n; i++)
                        if (is_assignment(words[i]))
                                assign(l, line, words[i]);
                return;
        }
        if (i == 0 && streq(words[0], "readonly")) {
                for (i = 1; i < n; i++)
                        make_readonly(l, line, words[i]);
                return;
        }
        if (i == 0 && streq(words[0], "unset")) {
                for (i = 1; i < n; i++)
                        if (name_len(words[i]) == strlen(words[i]))
                                var_set(l->env, words[i], strlen(words[i]), xstrdup(""));
                return;
        }
        if (i == 0 && (streq(words[0], ":") || streq(words[0], "true"))) {
                /* changes nothing, unless an expansion of its arguments assigns (${X:=y}): said */
                for (i = 1; i < n; i++)
                        free(expand(l, line, words[i]));
                return;
        }
        /* "A=x cmd": A is for cmd only; the command itself is not run */
        warn(l->env, _("%s:%u: \"%s\" is not run: idlecfg reads only assignments, and assumes it changes no "
                       "variable"), l->name, line, words[i]);
}

/* the word after << (quotes removed), the lexer past it */
static char *heredoc_word(struct lexer *l)
{
        struct strbuf sb = {};

        while (*l->p && !strchr(" \t\n;|&<>()", *l->p)) {
                if (*l->p == '\'' || *l->p == '"') {
                        char q = *l->p++;
                        while (*l->p && *l->p != q && *l->p != '\n')
                                sb_putc(&sb, *l->p++);
                        if (*l->p == q)
                                l->p++;
                } else if (*l->p == '\\' && l->p[1]) {
                        sb_putc(&sb, l->p[1]);
                        l->p += 2;
                } else
                        sb_putc(&sb, *l->p++);
        }
        return sb_steal(&sb);
}

/* at the newline that ends the line of a <<WORD: past the line that is WORD */
static void skip_heredoc(struct lexer *l)
{
        _cleanup_free_ char *word = l->heredoc;

        l->heredoc = NULL;
        while (*l->p == '\n') {
                const char *s = ++l->p, *e = s + strcspn(s, "\n");
                l->line++;
                if (l->heredoc_tabs)
                        s += strspn(s, "\t");
                l->p = e;
                if ((size_t) (e - s) == strlen(word ? word : "") && strncmp(s, strempty(word), (size_t) (e - s)) == 0)
                        return;
        }
}

void grubenv_parse(struct grubenv *env, const char *name, const char *text)
{
        struct lexer l = { .env = env, .name = name, .p = text, .line = 1 };

        for (;;) {
                char **words = NULL;
                size_t n = 0;
                unsigned line;
                const char *op = NULL;

                skip_blanks(&l);
                if (!*l.p || l.stop)
                        break;
                if (*l.p == '\n' && l.heredoc) {
                        skip_heredoc(&l);
                        continue;
                }
                if (*l.p == '\n' || *l.p == ';') {
                        l.line += *l.p == '\n';
                        l.p++;
                        continue;
                }
                line = l.line;
                for (;;) {
                        const char *start;

                        skip_blanks(&l);
                        if (!*l.p || *l.p == '\n' || *l.p == ';')
                                break;
                        if (*l.p == '#') {
                                /* a comment starts a word: to the end of the line */
                                l.p += strcspn(l.p, "\n");
                                break;
                        }
                        if (*l.p == '(' && n == 1 && name_len(words[0]) == strlen(words[0]) && !op) {
                                /* NAME() BODY: a function is defined, its body not run */
                                const char *q = l.p + 1 + strspn(l.p + 1, " \t");
                                if (*q == ')') {
                                        l.p = q + 1;
                                        l.func_header = true;
                                        free(words[0]);
                                        n = 0;
                                        continue;
                                }
                        }
                        if (l.p[0] == '<' && l.p[1] == '<' && l.p[2] != '<') {
                                /* a here-document: its lines, up to the word, are no commands */
                                if (!op)
                                        op = l.p;
                                l.p += 2;
                                l.heredoc_tabs = *l.p == '-';
                                l.p += l.heredoc_tabs;
                                skip_blanks(&l);
                                free(l.heredoc);
                                l.heredoc = heredoc_word(&l);
                                continue;
                        }
                        if (strchr("|&<>()", *l.p)) {
                                if (!op)
                                        op = l.p;
                                l.p++;
                                continue;
                        }
                        start = l.p;
                        if (!lex_word(&l)) {
                                warn(env, _("%s:%u: a quote is not closed: grub-mkconfig stops at this file; idlecfg "
                                            "assumes its lines from here on set nothing"), name, line);
                                for (size_t i = 0; i < n; i++)
                                        free(words[i]);
                                free(words);
                                return;
                        }
                        words = xrealloc(words, (n + 1) * sizeof(char *));
                        words[n++] = xstrndup(start, (size_t) (l.p - start));
                }
                if (op && !l.func_braces)
                        warn(env, _("%s:%u: \"%c\" (a pipe, list, redirection or subshell) is not run: idlecfg reads "
                                    "only assignments, and assumes the line changes no variable"), name, line, *op);
                else if (n > 0)
                        run_command(&l, line, words, n);
                for (size_t i = 0; i < n; i++)
                        free(words[i]);
                free(words);
        }
        free(l.heredoc);
}

char *grubenv_cmdline(const struct grubenv *env)
{
        _cleanup_free_ char *all = xasprintf("%s %s", grubenv_get(env, "GRUB_CMDLINE_LINUX"),
                                             grubenv_get(env, "GRUB_CMDLINE_LINUX_DEFAULT"));
        struct strbuf sb = {};

        /* the linux line of grub.cfg ends at a newline of the values (said when assigned) */
        all[strcspn(all, "\n")] = '\0';

        for (char *w = strtok(all, " \t\n"); w; w = strtok(NULL, " \t\n"))
                sb_appendf(&sb, "%s%s", sb.len ? " " : "", w);
        return sb.len ? sb_steal(&sb) : NULL;
}

void grubenv_done(struct grubenv *env)
{
        for (size_t i = 0; i < env->n_vars; i++) {
                free(env->vars[i].name);
                free(env->vars[i].value);
                free(env->vars[i].readonly);
                var_unexpanded_free(&env->vars[i]);
        }
        free(env->vars);
        for (size_t i = 0; i < env->n_warnings; i++)
                free(env->warnings[i]);
        free(env->warnings);
        *env = (struct grubenv) {};
}

/* one file into ENV; a file that cannot be read is a warning, and sets
 * nothing. IN_DIR: a name grub.d's glob found, where grub-mkconfig's
 * [ -e "$x" ] skips a link to nothing inside the root without a word. */
static void parse_file(const struct rootfs *rfs, struct grubenv *env, const char *path, bool in_dir)
{
        _cleanup_free_ char *text = NULL, *shown = NULL;
        size_t len = 0;
        int r;

        if (env->exited)
                return;         /* grub-mkconfig exited in an earlier file */
        shown = rootfs_display(rfs, path);
        r = rootfs_read_file(rfs, path, 0, GRUB_FILE_MAX, &text, &len, NULL);

        if (r == -ENOENT || r == -ENOTDIR || (in_dir && r == -ENOLINK))
                return;
        if (r < 0) {
                _cleanup_free_ char *why = rootfs_why(rfs, path, r, GRUB_FILE_MAX);
                rootfs_warn(rfs, _("%s: %s; idlecfg assumes it sets no kernel parameters"), shown, why);
                return;
        }
        if (memchr(text, '\0', len)) {
                /* grub-mkconfig's /bin/sh (dash; bash too) reads on without them */
                size_t k = 0;
                for (size_t i = 0; i < len; i++)
                        if (text[i])
                                text[k++] = text[i];
                text[k] = '\0';
                warn(env, _("%s: holds NUL bytes: grub-mkconfig's shell drops them and reads on, and so does "
                            "idlecfg"), shown);
        }
        grubenv_parse(env, shown, text);
}

/* idlecfg's snippet as install writes it (its header): its words are idlecfg's */
static bool own_snippet(const struct rootfs *rfs)
{
        _cleanup_free_ char *text = NULL;

        return rootfs_read_file(rfs, GRUB_SNIPPET_PATH, 0, GRUB_FILE_MAX, &text, NULL, NULL) == 0 &&
               startswith(text, "# Generated by " PACKAGE_NAME " ");
}

/* the files as grub-mkconfig sources them into ENV: /etc/default/grub, then
 * grub.d's in the order of their names; without idlecfg's own snippet when
 * SKIP_OWN; up to (not including) the snippet's place when UPTO_SNIPPET */
static void boot_env_files(const struct rootfs *rfs, struct grubenv *env, bool skip_own, bool upto_snippet)
{
        char **names = NULL;
        size_t n = 0;

        *env = (struct grubenv) {};
        parse_file(rfs, env, GRUB_DEFAULT_PATH, false);
        skip_own = skip_own && own_snippet(rfs);
        /* grub-mkconfig: for x in /etc/default/grub.d/NAME.cfg (a glob); do . "$x"; done */
        if (rootfs_list_dir(rfs, GRUB_DEFAULT_DIR, ".cfg", &names, &n) == 0)
                for (size_t i = 0; i < n; i++) {
                        _cleanup_free_ char *path = xasprintf("%s/%s", GRUB_DEFAULT_DIR, names[i]);
                        if (upto_snippet && strcmp(path, GRUB_SNIPPET_PATH) >= 0)
                                break;
                        if (!(skip_own && streq(path, GRUB_SNIPPET_PATH)))
                                parse_file(rfs, env, path, true);
                }
        rootfs_list_free(names, n);
}

void grub_boot_env(const struct rootfs *rfs, struct grubenv *env)
{
        boot_env_files(rfs, env, false, false);
        for (size_t i = 0; i < env->n_warnings; i++)
                rootfs_warn(rfs, "%s", env->warnings[i]);
}

char *grub_boot_cmdline(const struct rootfs *rfs)
{
        struct grubenv env;
        char *ret;

        boot_env_files(rfs, &env, true, false);
        for (size_t i = 0; i < env.n_warnings; i++)
                rootfs_warn(rfs, "%s", env.warnings[i]);
        ret = grubenv_cmdline(&env);
        grubenv_done(&env);
        return ret;
}

char *grub_cmdline_readonly_before_snippet(const struct rootfs *rfs)
{
        struct grubenv env;
        const struct grubvar *v;
        char *ret;

        /* the files grub-mkconfig sources before the snippet (its warnings are grub_boot_env()'s) */
        boot_env_files(rfs, &env, false, true);
        v = var_find(&env, "GRUB_CMDLINE_LINUX_DEFAULT", strlen("GRUB_CMDLINE_LINUX_DEFAULT"));
        ret = v && v->readonly ? xstrdup(v->readonly) : NULL;
        grubenv_done(&env);
        return ret;
}

/* every word of WORDS in LINE, between blanks */
static bool line_has_words(const char *line, const char *words)
{
        _cleanup_free_ char *w = xstrdup(words);

        for (char *save = NULL, *word = strtok_r(w, " \t\n", &save); word; word = strtok_r(NULL, " \t\n", &save)) {
                size_t n = strlen(word);
                bool found = false;
                for (const char *p = line; !found && (p = strstr(p, word)); p++)
                        found = (p == line || p[-1] == ' ') && (p[n] == '\0' || p[n] == ' ');
                if (!found)
                        return false;
        }
        return true;
}

char *grub_snippet_dropped_by(const struct rootfs *rfs)
{
        _cleanup_free_ char *snippet = NULL, *words = NULL;
        const char *p, *end;
        struct grubenv env = {};
        char **names = NULL;
        size_t n = 0;
        bool ours = false;
        char *ret = NULL;

        if (rootfs_read_file(rfs, GRUB_SNIPPET_PATH, 0, GRUB_FILE_MAX, &snippet, NULL, NULL) < 0)
                return NULL;
        p = strstr(snippet, "${GRUB_CMDLINE_LINUX_DEFAULT} ");
        if (!p)
                return NULL;
        p += strlen("${GRUB_CMDLINE_LINUX_DEFAULT} ");
        end = strchr(p, '"');
        if (!end)
                return NULL;
        words = xstrndup(p, (size_t) (end - p));
        parse_file(rfs, &env, GRUB_DEFAULT_PATH, false);
        if (rootfs_list_dir(rfs, GRUB_DEFAULT_DIR, ".cfg", &names, &n) == 0)
                for (size_t i = 0; i < n && !ret; i++) {
                        _cleanup_free_ char *path = xasprintf("%s/%s", GRUB_DEFAULT_DIR, names[i]);
                        _cleanup_free_ char *line = NULL;
                        parse_file(rfs, &env, path, true);
                        ours = ours || streq(path, GRUB_SNIPPET_PATH);
                        line = grubenv_cmdline(&env);
                        if (ours && !streq(path, GRUB_SNIPPET_PATH) && !line_has_words(strempty(line), words)) {
                                _cleanup_free_ char *shown = rootfs_display(rfs, path);
                                rootfs_warn(rfs, _("%s sets the kernel command line of GRUB without idlecfg's "
                                                   "words (%s), after %s: the kernel does not get them, "
                                                   "whatever update-grub makes; make it keep them, or "
                                                   "remove it"), shown, words, GRUB_SNIPPET_PATH);
                                ret = TAKE_PTR(path);
                        }
                }
        rootfs_list_free(names, n);
        grubenv_done(&env);
        return ret;
}
