/* knobs/network.c: Wake-on-LAN, and EEE off for a NIC whose hwdb entry says
 * IDLECFG_EEE=deny, through a drop-in of systemd's 99-default.link
 *
 * systemd-udevd's net_setup_link applies the first .link file (in lexical
 * order over /etc, /run and /usr/lib/systemd/network) whose [Match] fits a
 * NIC, and only that one (systemd.link(5)). A .link file of our own would thus
 * replace 99-default.link for the NICs it matches, and with it NamePolicy,
 * AlternativeNamesPolicy and MACAddressPolicy: the interface names would
 * change. A drop-in of 99-default.link (99-default.link.d/NN.conf) only adds
 * WakeOnLan= (and [EnergyEfficientEthernet]) to what that file does, for
 * exactly the NICs it already configures. NICs that an earlier .link file
 * matches never see it: they are skipped with that file named. Drop-ins of
 * .link files came with systemd 248
 * (systemd PR #18873, merged March 2021; systemd issue #23128 shows them at
 * work in 249); older udevd ignores them silently. */
#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include "knobs/knob.h"
#include "root/rootfs.h"

#define LINK_DROPINS_SINCE 248
/* [EnergyEfficientEthernet] Enable= in .link files: systemd PR #36302 and
 * #36716 (the section parsed, Enable= spelled so), merged March 2025, in 258 */
#define LINK_EEE_SINCE 258
#define LINK_EEE_PARAM "EnergyEfficientEthernet.Enable"
#define LINK_FILE_MAX (64u << 10)

/* the directories of .link files, highest priority first */
static const char *const link_dirs[] = {
        "/etc/systemd/network", "/run/systemd/network", "/usr/local/lib/systemd/network",
        "/usr/lib/systemd/network", "/lib/systemd/network",
};

struct link_file {
        char *name;             /* 10-foo.link */
        char *path;             /* where the one that counts lives */
        char *text;             /* NULL: masked (empty, or a link to /dev/null), or unusable */
        char *unusable;         /* why udev cannot read it (a FIFO, a link to nothing in the root) */
};

struct link_files {
        struct link_file *v;
        size_t n;
};

static void link_files_done(struct link_files *l)
{
        for (size_t i = 0; i < l->n; i++) {
                free(l->v[i].name);
                free(l->v[i].path);
                free(l->v[i].text);
                free(l->v[i].unusable);
        }
        free(l->v);
}

static int link_cmp(const void *a, const void *b)
{
        return strcmp(((const struct link_file *) a)->name, ((const struct link_file *) b)->name);
}

/* A .link file the reader refused (R): udev skips it, and its name still hides
 * the files of that name in lower directories, as a masked one does. What it
 * is, for the warning and the plan (NULL: the masking idiom, a link to
 * /dev/null, or a file gone since the directory was listed). */
static char *link_file_unusable(struct planctx *c, const char *path, int r)
{
        _cleanup_free_ char *target = NULL, *shown = rootfs_display(c->inv->rfs, path);
        bool is_link = rootfs_readlink(c->inv->rfs, path, &target) == 0;
        char *what;

        if ((is_link && streq(target, "/dev/null")) || r == -ENOENT)
                return NULL;
        what = rootfs_why(c->inv->rfs, path, r, LINK_FILE_MAX);
        /* a link to nothing inside the root: udev's fopen() finds no file and
         * skips it without a word (its name still hides the lower ones) */
        if (r == -ENOLINK)
                return what;
        rootfs_warn(c->inv->rfs, _("%s: %s; udev in the target cannot use it either, and its name hides the "
                                   "files of that name in lower-priority directories"), shown, what);
        return what;
}

/* every .link file that counts, sorted by name: a name in a higher directory hides the others */
static void link_files_load(struct planctx *c, struct link_files *l)
{
        for (size_t k = 0; k < ELEMENTSOF(link_dirs); k++) {
                char **names;
                size_t m;

                if (rootfs_list_dir(c->inv->rfs, link_dirs[k], ".link", &names, &m) < 0)
                        continue;
                for (size_t j = 0; j < m; j++) {
                        const char *name = names[j];
                        bool seen = false;
                        struct link_file *f;
                        int r;

                        for (size_t i = 0; i < l->n && !seen; i++)
                                seen = streq(l->v[i].name, name);
                        if (seen)
                                continue;
                        l->v = xrealloc(l->v, (l->n + 1) * sizeof(*l->v));
                        f = &l->v[l->n++];
                        *f = (struct link_file) { .name = xstrdup(name),
                                                  .path = xasprintf("%s/%s", link_dirs[k], name) };
                        /* a link to /dev/null masks (it resolves to the target's device
                         * node, or to nothing); an empty file masks too */
                        r = rootfs_read_file(c->inv->rfs, f->path, 0, LINK_FILE_MAX, &f->text, NULL, NULL);
                        if (r == 0 && !*strstrip(f->text))
                                { free(f->text); f->text = NULL; }
                        else if (r < 0)
                                f->unusable = link_file_unusable(c, f->path, r);
                }
                rootfs_list_free(names, m);
        }
        if (l->n)
                qsort(l->v, l->n, sizeof(*l->v), link_cmp);
}

/* systemd's version in the target, from its shared library's name
 * (libsystemd-shared-252.so, libsystemd-shared-255.4-1.fc40.so); 0 if not found */
static const char *const systemd_dirs[] = {
        "/usr/lib/systemd", "/lib/systemd", "/usr/lib64/systemd", "/usr/lib/x86_64-linux-gnu/systemd",
        "/usr/lib/aarch64-linux-gnu/systemd", "/usr/lib/i386-linux-gnu/systemd",
        "/usr/lib/arm-linux-gnueabihf/systemd", "/usr/lib/riscv64-linux-gnu/systemd",
        "/usr/lib/powerpc64le-linux-gnu/systemd", "/usr/lib/s390x-linux-gnu/systemd",
};
#define SYSTEMD_SHARED "libsystemd-shared-"

static unsigned systemd_version(struct planctx *c, char **ret_where)
{
        for (size_t k = 0; k < ELEMENTSOF(systemd_dirs); k++) {
                int dfd = rootfs_openat(c->inv->rfs, systemd_dirs[k], O_RDONLY | O_DIRECTORY);
                struct dirent *de;
                unsigned best = 0;
                DIR *d;

                if (dfd < 0)
                        continue;
                d = fdopendir(dfd);
                if (!d) {
                        close(dfd);
                        continue;
                }
                while ((de = readdir(d))) {
                        const char *v = startswith(de->d_name, SYSTEMD_SHARED) ?
                                        de->d_name + strlen(SYSTEMD_SHARED) : NULL;
                        if (v && isdigit((unsigned char) *v) && strstr(v, ".so")) {
                                unsigned long n = strtoul(v, NULL, 10);
                                if (n > best && n < 100000) {
                                        best = (unsigned) n;
                                        free(*ret_where);
                                        *ret_where = xasprintf("%s/%s", systemd_dirs[k], de->d_name);
                                }
                        }
                }
                closedir(d);
                if (best)
                        return best;
        }
        return 0;
}

enum match { M_NO, M_MAYBE, M_YES };

/* "Driver=e1000e r8169", "Type=!wlan": a list of globs, "!" inverts the whole list */
static enum match glob_list(const char *list, const char *value)
{
        bool invert = list[0] == '!';
        bool hit = false;
        _cleanup_free_ char *copy = xstrdup(list + invert);

        if (!value)
                return M_MAYBE;
        for (char *save = NULL, *w = strtok_r(copy, " \t", &save); w && !hit; w = strtok_r(NULL, " \t", &save))
                hit = fnmatch(w, value, 0) == 0;
        return hit != invert ? M_YES : M_NO;
}

/* Does the [Match] section of TEXT fit NIC D? Only Driver=, Type= and
 * OriginalName=* are decided here; any other key (MACAddress=, Path=,
 * Property=, Host=, ...) makes it "maybe". No key at all matches every NIC. */
static enum match link_matches(const char *text, const struct device *d)
{
        _cleanup_free_ char *copy = xstrdup(text);
        enum match m = M_YES;
        bool in_match = false;

        for (char *save = NULL, *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
                char *eq, *key, *value;
                enum match k;

                line = strstrip(line);
                if (!*line || *line == '#' || *line == ';')
                        continue;
                if (*line == '[') {
                        in_match = streq(line, "[Match]");
                        continue;
                }
                if (!in_match || !(eq = strchr(line, '=')))
                        continue;
                *eq = '\0';
                key = strstrip(line);
                value = strstrip(eq + 1);
                if (!*value)
                        continue;       /* an empty assignment resets the list */
                if (streq(key, "Driver"))
                        k = glob_list(value, d->driver);
                else if (streq(key, "Type"))
                        k = glob_list(value, kv_get(&d->ids, "kind"));
                else if (streq(key, "OriginalName") && streq(value, "*"))
                        k = M_YES;
                else
                        k = M_MAYBE;
                if (k == M_NO)
                        return M_NO;
                if (k == M_MAYBE)
                        m = M_MAYBE;
        }
        return m;
}

/* What the drop-in would carry: Wake-on-LAN from the profile (VALUE, NULL:
 * kept), EEE off for the NICs whose hwdb entry says IDLECFG_EEE=deny. */
struct wants {
        const struct device_list *net;
        const char *value;      /* WakeOnLan= */
        const char *pwhy;
        char **eee;             /* per NIC: the hwdb entry's reason, NULL: none */
        unsigned version;       /* systemd in the target, 0: unknown */
        const char *lib;
};

static bool is_ether(const struct device *d)
{
        return streq_ptr(kv_get(&d->ids, "kind"), "ether");
}

/* nothing of the drop-in reaches any NIC: every wanted setting is a skip with WHY */
static void skip_all(struct planctx *c, const struct wants *w, char *why_take)
{
        _cleanup_free_ char *why = why_take;

        for (size_t i = 0; i < w->net->n; i++) {
                if (!is_ether(&w->net->v[i]))
                        continue;
                if (w->value)
                        plan_skip(c, &w->net->v[i], "network.wake_on_lan",
                                  xasprintf("skipped: %s; wanted WakeOnLan=%s by %s", why, w->value, w->pwhy));
                if (w->eee[i])
                        plan_skip(c, &w->net->v[i], "network.eee",
                                  xasprintf("skipped: %s; wanted EEE off ([EnergyEfficientEthernet] Enable=no) by %s",
                                            why, w->eee[i]));
        }
}

/* the first .link file sorted before 99-default.link (DFLT) that surely fits
 * NIC D (*ret_m M_YES), else the first that may (M_MAYBE), else NULL */
static const struct link_file *link_before(const struct link_files *l, const struct link_file *dflt,
                                           const struct device *d, enum match *ret_m)
{
        const struct link_file *first = NULL;

        *ret_m = M_NO;
        for (size_t k = 0; k < l->n && &l->v[k] != dflt; k++) {
                enum match x = l->v[k].text ? link_matches(l->v[k].text, d) : M_NO;
                if (x == M_YES) {
                        *ret_m = M_YES;
                        return &l->v[k];
                }
                if (x == M_MAYBE && !first) {
                        *ret_m = M_MAYBE;
                        first = &l->v[k];
                }
        }
        return first;
}

/* Does the drop-in reach NIC D? Not when a .link file sorted before
 * 99-default.link surely fits it: KNOB is skipped (SET: what to set in that
 * file instead; WANTED: "by WHO") and a warning says WHAT does not reach it.
 * A file that may fit is warned about (THEN: what would then not reach it). */
static bool dropin_reaches(struct planctx *c, const struct device *d, const char *knob, const struct link_files *l,
                           const struct link_file *dflt, const char *set, const char *wanted, const char *what,
                           const char *then)
{
        enum match m;
        const struct link_file *first = link_before(l, dflt, d, &m);

        if (m == M_YES) {
                plan_skip(c, d, knob,
                          xasprintf("skipped: %s matches this NIC before 99-default.link (the first matching .link "
                                    "file is the only one applied), so a drop-in of 99-default.link does not reach "
                                    "it; set %s there; wanted %s", first->path, set, wanted));
                plan_add_warning(c->plan, "%s: %s matches it before 99-default.link: %s does not reach it", d->name,
                                 first->path, what);
                return false;
        }
        if (first)
                plan_add_warning(c->plan, "%s: %s may match it before 99-default.link (a [Match] key idlecfg does "
                                 "not evaluate); then %s does not reach it", d->name, first->path, then);
        return true;
}

static void plan_wol(struct planctx *c, const struct wants *w, const struct link_files *l,
                     const struct link_file *dflt)
{
        for (size_t i = 0; i < w->net->n; i++) {
                const struct device *d = &w->net->v[i];
                _cleanup_free_ char *set = NULL, *wanted = NULL;

                if (!is_ether(d))
                        continue;
                set = xasprintf("WakeOnLan=%s", w->value);
                wanted = xasprintf("by %s", w->pwhy);
                if (!dropin_reaches(c, d, "network.wake_on_lan", l, dflt, set, wanted, "[network] wake_on_lan", set))
                        continue;
                plan_service(c, d, "network.wake_on_lan", MECH_LINK, "WakeOnLan", w->value,
                             xasprintf("%s; drop-in of %s, %s", w->pwhy, dflt->path,
                                       w->version ? "systemd in the target reads it" :
                                                    "systemd's version in the target is unknown: drop-ins of "
                                                    ".link files need 248 or later"));
        }
}

/* EEE off ([EnergyEfficientEthernet] Enable=no, systemd 258) for the NICs with
 * a deny entry. The drop-in has no [Match] of its own (one would narrow
 * 99-default.link itself): it reaches every NIC 99-default.link configures,
 * and the plan names the others it turns EEE off on too. */
static void plan_eee(struct planctx *c, const struct wants *w, const struct link_files *l,
                     const struct link_file *dflt)
{
        bool planned = false;

        for (size_t i = 0; i < w->net->n; i++) {
                const struct device *d = &w->net->v[i];
                _cleanup_free_ char *wanted = NULL;

                if (!w->eee[i])
                        continue;
                if (w->version && w->version < LINK_EEE_SINCE) {
                        plan_skip(c, d, "network.eee",
                                  xasprintf("skipped: systemd %u in the target (%s) knows no [EnergyEfficientEthernet] "
                                            "section in .link files (it came in %d): EEE stays as the driver sets it; "
                                            "wanted EEE off by %s", w->version, w->lib, LINK_EEE_SINCE, w->eee[i]));
                        continue;
                }
                wanted = xasprintf("EEE off by %s", w->eee[i]);
                if (!dropin_reaches(c, d, "network.eee", l, dflt, "[EnergyEfficientEthernet] Enable=no", wanted,
                                    "its hwdb entry's EEE off", "EEE off"))
                        continue;
                plan_service(c, d, "network.eee", MECH_LINK, LINK_EEE_PARAM, "off",
                             xasprintf("%s; drop-in of %s, %s", w->eee[i], dflt->path,
                                       w->version ? "systemd in the target reads [EnergyEfficientEthernet]" :
                                                    "systemd's version in the target is unknown: "
                                                    "[EnergyEfficientEthernet] needs 258 or later"));
                planned = true;
        }
        if (!planned)
                return;
        for (size_t i = 0; i < w->net->n; i++) {
                const struct device *d = &w->net->v[i];
                enum match m;

                if (w->eee[i] || !is_ether(d))
                        continue;
                link_before(l, dflt, d, &m);
                if (m != M_YES)
                        plan_add_warning(c->plan, "%s: EEE goes off on it too: the drop-in of 99-default.link "
                                         "that turns it off for a NIC of the hwdb cannot match one NIC, and "
                                         "reaches every NIC 99-default.link configures", d->name);
        }
}

void knob_network(struct planctx *c)
{
        const struct device_list *net = &c->inv->classes[CL_NET];
        _cleanup_(link_files_done) struct link_files l = {};
        _cleanup_free_ char *pwhy = NULL, *lib = NULL;
        struct wants w = { .net = net, .value = profile_value(c, "network", "wake_on_lan") };
        const struct link_file *dflt = NULL;
        bool any = false, any_eee = false;

        for (size_t i = 0; i < net->n && !any; i++)
                any = is_ether(&net->v[i]);
        if (!any)
                return;
        if (!w.value)
                plan_skip_keep(c, "network.wake_on_lan", "network", "wake_on_lan");
        w.eee = xcalloc(net->n ? net->n : 1, sizeof(*w.eee));
        for (size_t i = 0; i < net->n; i++) {
                struct hwdb_fact f;
                if (is_ether(&net->v[i]) && hwdb_fact(c, net->v[i].modalias, "IDLECFG_EEE", &f) &&
                    streq(f.value, "deny")) {
                        w.eee[i] = fact_reason(&f);
                        any_eee = true;
                }
        }
        if (!w.value && !any_eee)
                goto done;
        if (w.value)
                w.pwhy = pwhy = profile_reason(c, "network", "wake_on_lan");
        link_files_load(c, &l);
        for (size_t i = 0; i < l.n; i++)
                if (streq(l.v[i].name, "99-default.link"))
                        dflt = &l.v[i];
        if (!dflt) {
                skip_all(c, &w, xstrdup("the target has no 99-default.link (systemd-udevd's default link "
                                        "configuration)"));
                goto done;
        }
        if (!dflt->text && dflt->unusable) {
                skip_all(c, &w, xasprintf("%s cannot be read (%s): udev skips it and no .link file applies to "
                                          "these NICs, so a drop-in of it would do nothing", dflt->path,
                                          dflt->unusable));
                goto done;
        }
        if (!dflt->text) {
                skip_all(c, &w, xasprintf("%s is masked: no .link file applies to these NICs and a drop-in "
                                          "of it would do nothing", dflt->path));
                goto done;
        }
        w.version = systemd_version(c, &lib);
        w.lib = lib;
        if (w.version && w.version < LINK_DROPINS_SINCE) {
                skip_all(c, &w, xasprintf("systemd %u in the target (%s) reads no drop-ins of .link files "
                                          "(they came in %d), and a .link file of idlecfg's own would replace "
                                          "99-default.link and rename the NICs", w.version, lib,
                                          LINK_DROPINS_SINCE));
                goto done;
        }
        if (w.value)
                plan_wol(c, &w, &l, dflt);
        if (any_eee)
                plan_eee(c, &w, &l, dflt);
done:
        for (size_t i = 0; i < net->n; i++)
                free(w.eee[i]);
        free(w.eee);
}

static const char *const ch_wake_on_lan[] = { "off", "keep", NULL };

static const struct profile_key keys[] = {
        KEY_CHOICE("wake_on_lan", ch_wake_on_lan),
};

static const struct knob_rule rules[] = {
        RULE_WORDS("network.wake_on_lan", "off", NULL, "WakeOnLan"),
        /* "Section.Key": the emitter writes it under [Section]; Enable= takes a boolean */
        RULE_WORDS_SERVICE("network.eee", "off", LINK_EEE_PARAM, "off=no"),
};

static const struct knob_property properties[] = {
        PROP_WORDS("IDLECFG_EEE", "deny",
                   "Energy Efficient Ethernet breaks this NIC: EEE is turned off for it through the drop-in of "
                   "99-default.link (systemd 258 or later)"),
};

/* the .link files, and systemd's version (the name of its shared library) */
static const struct knob_input inputs[] = {
        KNOB_INPUT(INPUT_DIR, link_dirs, ".link"),
        KNOB_INPUT(INPUT_NAMES, systemd_dirs, SYSTEMD_SHARED),
};

/* ETHTOOL_G* command DATA (its cmd set) of interface NAME, read only; 0 or
 * -errno. The interface must be the one sysfs shows: under umockdev /sys is a
 * recording and the kernel's interface of that name, if any, is another NIC. */
static int ethtool_get(const char *name, void *data)
{
        _cleanup_free_ char *path = NULL, *idx = NULL;
        _cleanup_close_ int fd = -1;
        struct ifreq ifr = {};

        if (!name || strlen(name) >= sizeof(ifr.ifr_name) || getenv("UMOCKDEV_DIR"))
                return -ENODEV;
        path = xasprintf("/sys/class/net/%s/ifindex", name);
        if (read_raw(path, &idx) < 0 || strtoul(idx, NULL, 10) != if_nametoindex(name))
                return -ENODEV;
        fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
                return -errno;
        memcpy(ifr.ifr_name, name, strlen(name));
        ifr.ifr_data = data;
        if (ioctl(fd, SIOCETHTOOL, &ifr) < 0)
                return -errno;
        return 0;
}

/* Wake-on-LAN of interface NAME as the kernel reports it (ETHTOOL_GWOL):
 * "off" or the ethtool letters ("g", "pumbg"), or -errno */
static int wol_read(const char *name, char **ret)
{
        static const struct { unsigned bit; char letter; } bits[] = {
                { WAKE_PHY, 'p' }, { WAKE_UCAST, 'u' }, { WAKE_MCAST, 'm' }, { WAKE_BCAST, 'b' },
                { WAKE_ARP, 'a' }, { WAKE_MAGIC, 'g' }, { WAKE_MAGICSECURE, 's' }, { WAKE_FILTER, 'f' },
        };
        struct ethtool_wolinfo wol = { .cmd = ETHTOOL_GWOL };
        char letters[ELEMENTSOF(bits) + 1];
        size_t n = 0;
        int r = ethtool_get(name, &wol);

        if (r < 0)
                return r;
        for (size_t i = 0; i < ELEMENTSOF(bits); i++)
                if (wol.wolopts & bits[i].bit)
                        letters[n++] = bits[i].letter;
        letters[n] = '\0';
        *ret = xstrdup(n ? letters : "off");
        return 0;
}

/* verify: the live value is the kernel's answer, sysfs shows none: WakeOnLan=
 * from ETHTOOL_GWOL, EEE "on" or "off" from ETHTOOL_GEEE (what ethtool
 * --show-eee calls its status: enabled or disabled) */
static int network_live_value(const struct setting *s, char **ret)
{
        struct ethtool_eee eee = { .cmd = ETHTOOL_GEEE };
        int r;

        if (s->mech != MECH_LINK)
                return -ENOENT;
        if (streq_ptr(s->param, "WakeOnLan"))
                return wol_read(s->device_name, ret);
        if (!streq_ptr(s->param, LINK_EEE_PARAM))
                return -ENOENT;
        r = ethtool_get(s->device_name, &eee);
        if (r < 0)
                return r;
        *ret = xstrdup(eee.eee_enabled ? "on" : "off");
        return 0;
}

const struct knob_family knob_family_network = {
        .name = "network",
        .section = "network",
        KNOB_LIST(keys, keys),
        KNOB_LIST(rules, rules),
        KNOB_LIST(properties, properties),
        KNOB_LIST(inputs, inputs),
        .plan = knob_network,
        .live_value = network_live_value,
};
