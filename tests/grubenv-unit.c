/* tests/grubenv-unit.c: TAP unit test of src/root/grubenv.c, GRUB's default files
 * read as grub-mkconfig's shell sources them. With --root DIR: print the
 * command line of DIR's normal GRUB entries (tests/grub.sh compares it with
 * what grub-mkconfig writes), and its warnings on stderr. */
#include "config.h"

#include "tap.h"

#include "root/grubenv.h"

static char *cmdline_of(const char *text, size_t *ret_warnings, char **ret_first_warning)
{
        struct grubenv env = {};
        char *c;

        grubenv_parse(&env, "grub", text);
        c = grubenv_cmdline(&env);
        *ret_warnings = env.n_warnings;
        *ret_first_warning = env.n_warnings ? xstrdup(env.warnings[0]) : NULL;
        grubenv_done(&env);
        return c;
}

static void check(const char *what, const char *text, const char *expect, size_t expect_warnings,
                  const char *warning_prefix)
{
        _cleanup_free_ char *w = NULL;
        size_t nw;
        _cleanup_free_ char *c = cmdline_of(text, &nw, &w);

        if (!ok(streq_ptr(c, expect) && nw == expect_warnings &&
                (!warning_prefix || (w && startswith(w, warning_prefix))), "%s", what))
                printf("# got \"%s\" with %zu warnings (first: %s)\n", strempty(c), nw, strempty(w));
}

static int print_root(const char *dir)
{
        struct rootfs rfs;
        _cleanup_free_ char *c = NULL;
        int r = rootfs_open(dir, &rfs);

        if (r < 0) {
                fprintf(stderr, "%s: %s\n", dir, strerror(-r));
                return 1;
        }
        c = grub_boot_cmdline(&rfs);
        printf("%s\n", strempty(c));
        for (size_t i = 0; i < rfs.warnings->n; i++)
                fprintf(stderr, "warning: %s\n", rfs.warnings->v[i]);
        rootfs_close(&rfs);
        return 0;
}

int main(int argc, char **argv)
{
        if (argc == 3 && streq(argv[1], "--root"))
                return print_root(argv[2]);

        check("plain", "GRUB_DEFAULT=0\nGRUB_CMDLINE_LINUX_DEFAULT=\"quiet\"\nGRUB_CMDLINE_LINUX=\"\"\n", "quiet", 0, NULL);
        check("LINUX before DEFAULT", "GRUB_CMDLINE_LINUX_DEFAULT=b\nGRUB_CMDLINE_LINUX=a\n", "a b", 0, NULL);
        check("the last assignment wins", "GRUB_CMDLINE_LINUX=\"pcie_aspm=off\"\nGRUB_CMDLINE_LINUX=\"\"\n", NULL, 0, NULL);
        check("a trailing comment", "GRUB_CMDLINE_LINUX=\"a\" # pcie_aspm=off\n", "a", 0, NULL);
        check("# inside a word", "GRUB_CMDLINE_LINUX=a#b\n#GRUB_CMDLINE_LINUX=c\n", "a#b", 0, NULL);
        check("export", "export GRUB_CMDLINE_LINUX=\"pcie_aspm=off\"\nexport GRUB_CMDLINE_LINUX\n", "pcie_aspm=off", 0, NULL);
        check("continuation inside quotes", "GRUB_CMDLINE_LINUX=\"quiet \\\npcie_aspm=off\"\n", "quiet pcie_aspm=off", 0, NULL);
        check("continuation outside quotes", "GRUB_CMDLINE_LINUX=quiet\\\n,x \\\nGRUB_CMDLINE_LINUX_DEFAULT=y\n", "quiet,x y", 0, NULL);
        check("$VAR and ${VAR}", "X=pcie_aspm\nY=off\nGRUB_CMDLINE_LINUX=\"$X=$Y ${X}.policy=x\"\n",
              "pcie_aspm=off pcie_aspm.policy=x", 0, NULL);
        check("a variable set later is not seen", "GRUB_CMDLINE_LINUX=\"$X\"\nX=pcie_aspm=off\n", NULL, 0, NULL);
        check("appending", "GRUB_CMDLINE_LINUX_DEFAULT=quiet\nGRUB_CMDLINE_LINUX_DEFAULT=\"$GRUB_CMDLINE_LINUX_DEFAULT splash\"\n",
              "quiet splash", 0, NULL);
        check("two assignments on a line, in order", "A=pcie_aspm=off GRUB_CMDLINE_LINUX=$A\n", "pcie_aspm=off", 0, NULL);
        check("single quotes are literal", "GRUB_CMDLINE_LINUX='a $X \"b\" \\c'\n", "a $X \"b\" \\c", 0, NULL);
        check("double-quote escapes", "GRUB_CMDLINE_LINUX=\"a=\\\"x\\\" \\$y \\\\z \\q\"\n", "a=\"x\" $y \\z \\q", 0, NULL);
        check("RECOVERY and XEN_REPLACE do not reach the normal entries",
              "GRUB_CMDLINE_LINUX_RECOVERY=pcie_aspm=off\nGRUB_CMDLINE_LINUX_XEN_REPLACE=pcie_aspm=off\n"
              "GRUB_CMDLINE_LINUX_XEN_REPLACE_DEFAULT=pcie_aspm=off\nGRUB_CMDLINE_LINUX=a\n", "a", 0, NULL);
        check("unset", "GRUB_CMDLINE_LINUX=pcie_aspm=off\nunset GRUB_CMDLINE_LINUX\n", NULL, 0, NULL);
        check("semicolons", "GRUB_CMDLINE_LINUX=a; GRUB_CMDLINE_LINUX_DEFAULT=b;\n", "a b", 0, NULL);
        check("a command is not run, and said", "GRUB_CMDLINE_LINUX=a\necho hi\n", "a", 1, "grub:2: \"echo\" is not run");
        check("an assignment for a command is not kept", "GRUB_CMDLINE_LINUX=a cmd\n", NULL, 1, "grub:1: \"cmd\" is not run");
        check("if is not run, said once; the assignments inside are read",
              "if true; then\nGRUB_CMDLINE_LINUX=a\nfi\nif x; then GRUB_CMDLINE_LINUX_DEFAULT=b; else :; fi\n", "a b", 2,
              "grub:1: \"if\" is not run");
        check("the null command", ":\nGRUB_CMDLINE_LINUX=a\n: ${X:=y}\n", "a", 1, "grub:3: \"${X:=y}\" is not expanded");
        check("$(...) is not run, and said", "GRUB_CMDLINE_LINUX=\"a $(cat /etc/x) b\"\n", "a b", 1,
              "grub:1: \"$(\" is not expanded");
        check("`...` is not run, and said", "\n\nGRUB_CMDLINE_LINUX=\"a `cat /x` b\"\n", "a b", 1, "grub:3: a command substitution");
        check("Debian's GRUB_DISTRIBUTOR=`lsb_release ...`: not on the command line, not said",
              "GRUB_DEFAULT=0\nGRUB_DISTRIBUTOR=`lsb_release -i -s 2> /dev/null || echo Debian`\n"
              "GRUB_CMDLINE_LINUX_DEFAULT=\"quiet\"\n", "quiet", 0, NULL);
        check("$(...) in a variable the command line takes: said, naming its own line",
              "X=$(cat /x)\nY=\"$X\"\nGRUB_CMDLINE_LINUX_DEFAULT=\"${Y} a\"\n", "a", 1, "grub:1: \"$(\" is not expanded");
        check("a variable assigned again without it: not said",
              "X=`cat /x`\nX=b\nGRUB_CMDLINE_LINUX=\"$X\"\n", "b", 0, NULL);
        check("${VAR:-x} is said", "GRUB_CMDLINE_LINUX=\"${X:-pcie_aspm=off}\"\n", NULL, 1, "grub:1: \"${X:-pcie_aspm=off}\"");
        check("a redirection is said", "GRUB_CMDLINE_LINUX=a >/dev/null\n", NULL, 1, "grub:1: \">\"");
        check("an unclosed quote stops the file", "GRUB_CMDLINE_LINUX=a\nGRUB_CMDLINE_LINUX=\"b\nc\n", "a", 1,
              "grub:2: a quote is not closed");
        check("line numbers count continuation lines", "A=\"1\n2\"\nB=\\\n3\necho\n", NULL, 1, "grub:5: \"echo\"");
        check("a lone $ is literal", "GRUB_CMDLINE_LINUX=\"a$ $\"\n", "a$ $", 0, NULL);
        check("empty file", "", NULL, 0, NULL);
        printf("1..%d\n", n);
        return failed ? 1 : 0;
}
