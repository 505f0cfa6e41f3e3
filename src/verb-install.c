/* verb-install.c: the printing side of install: its progress, the --dry-run
 * diff, the next steps and its JSON, from the result install.c returns */
#include "config.h"

#include "diff.h"
#include "json.h"
#include "manifest.h"
#include "pstable.h"
#include "verb-install.h"

static const char *kind_name(enum target_kind k)
{
        switch (k) {
        case T_UDEV: return _("udev rules");
        case T_MODPROBE: return _("modprobe.d options");
        case T_TMPFILES: return _("tmpfiles.d lines");
        case T_SYSCTL: return _("sysctl.d lines");
        case T_NM: return _("NetworkManager defaults");
        case T_LINK: return _("systemd .link drop-in");
        case T_CMDLINE_KERNEL:
        case T_CMDLINE_GRUB:
        case T_CMDLINE_OWN: return _("kernel command line");
        case T_POWER: return _("power-source switch");
        case T_POWER_HOOK: return _("power-source system-sleep hook");
        case T_FIRSTBOOT: return _("first-boot unit enabled");
        case T_OTHER: break;
        }
        return _("file");
}

void install_print(const struct install_result *r, FILE *out)
{
        for (size_t i = 0; i < r->n; i++) {
                const struct install_event *e = &r->v[i];

                switch (e->what) {
                case IE_WROTE:
                        fprintf(out, P_("  wrote %s (%s, %zu setting)\n", "  wrote %s (%s, %zu settings)\n",
                                        e->n_settings), e->path, kind_name(e->kind), e->n_settings);
                        break;
                case IE_CHANGED:
                        fprintf(out, P_("  changed %s (%s, %zu setting; the old file is kept for rollback)\n",
                                        "  changed %s (%s, %zu settings; the old file is kept for rollback)\n",
                                        e->n_settings), e->path, kind_name(e->kind), e->n_settings);
                        break;
                case IE_UPDATED:
                        fprintf(out, P_("  updated %s (%s, %zu setting)\n", "  updated %s (%s, %zu settings)\n",
                                        e->n_settings), e->path, kind_name(e->kind), e->n_settings);
                        break;
                case IE_OVERWROTE:
                        fprintf(out, _("  overwrote your changed %s (--force; your version is kept in %s)\n"),
                                e->path, BACKUP_DIR);
                        break;
                case IE_RESTORED_UNNEEDED:
                        fprintf(out, _("  restored %s: nothing of ours is needed there now\n"), e->path);
                        break;
                case IE_REMOVED_UNNEEDED:
                        fprintf(out, _("  removed %s: nothing of ours is needed there now\n"), e->path);
                        break;
                case IE_KEPT_BESIDE:
                        fprintf(out, _("  kept %s: it was changed since idlecfg wrote it; ours is "
                                       "beside it as %s%s (--force to overwrite)\n"), e->path, e->path, NEW_SUFFIX);
                        break;
                case IE_NOT_RECREATED:
                        fprintf(out, _("  did not recreate %s: it was deleted since idlecfg wrote "
                                       "it; ours is beside it as %s%s (--force to recreate)\n"),
                                e->path, e->path, NEW_SUFFIX);
                        break;
                case IE_KEPT_UNNEEDED:
                        fprintf(out, _("  kept %s: it was changed since idlecfg wrote it and is no longer "
                                       "needed (--force to restore the original)\n"), e->path);
                        break;
                case IE_NOTHING:
                        fprintf(out, _("Nothing to change: every file is as the plan wants it.\n"));
                        break;
                case IE_DIFF:
                        print_diff(out, e->name_a, e->a, e->name_b, e->b);
                        break;
                case IE_DIFF_KEPT:
                        fprintf(out, _("# %s was changed since idlecfg wrote it: it would be kept "
                                       "(--force to overwrite)\n"), e->path);
                        break;
                }
        }
}

/* a file whose change the installer has to follow up */
static bool needs_step(const struct install_file *x)
{
        return (x->action == A_WRITE || x->action == A_RESTORE) && x->kind != T_OTHER && x->kind != T_FIRSTBOOT &&
               !(x->kind == T_CMDLINE_OWN && !x->wanted);
}

void install_print_next_steps(const struct install_result *r, const struct rootfs *rfs, const struct plan *p,
                              FILE *out)
{
        bool host = root_is_host(rfs->path), any = false;
        const char *k = p->kernel ? p->kernel : "KERNEL";
        _cleanup_free_ char *chroot = host ? xstrdup("") : xasprintf("chroot %s ", rfs->path);

        for (size_t i = 0; i < r->n_files; i++) {
                const struct install_file *x = &r->files[i];
                if (!needs_step(x))
                        continue;
                if (!any)
                        fputs(host ? _("Next steps (idlecfg runs none of them):\n")
                                   : _("Next steps for the installer (idlecfg runs nothing in the target):\n"), out);
                any = true;
                switch (x->kind) {
                case T_UDEV:
                        if (host)
                                fputs(_("  udevadm control --reload && udevadm trigger --action=change  "
                                        "(or reboot)\n"), out);
                        else
                                fputs(_("  udev rules: nothing to run, they apply when the target boots\n"), out);
                        break;
                case T_MODPROBE:
                        if (host)
                                fprintf(out, _("  update-initramfs -u -k %s  (or dracut -f): modules in the "
                                               "initramfs read modprobe.d there\n"), k);
                        else
                                fprintf(out, _("  chroot %s update-initramfs -u -k %s  (or dracut -f): modules "
                                               "in the initramfs read modprobe.d there\n"), rfs->path, k);
                        break;
                case T_TMPFILES:
                        if (host)
                                fprintf(out, _("  systemd-tmpfiles --create %s  (or reboot)\n"), TMPFILES_PATH);
                        else
                                fputs(_("  tmpfiles.d: nothing to run, it applies when the target boots\n"), out);
                        break;
                case T_SYSCTL:
                        if (host)
                                fprintf(out, _("  sysctl -p %s  (or idlecfg apply, or reboot: systemd-sysctl "
                                               "reads it at boot)\n"), SYSCTL_PATH);
                        else
                                fputs(_("  sysctl.d: nothing to run, systemd-sysctl applies it when the target "
                                        "boots\n"), out);
                        break;
                case T_NM:
                        if (host)
                                fputs(_("  nmcli general reload conf  (NetworkManager applies it when it next "
                                        "activates a Wi-Fi connection; or reboot)\n"), out);
                        else
                                fputs(_("  NetworkManager: nothing to run, it applies when the target boots\n"), out);
                        break;
                case T_LINK:
                        fputs(_("  systemd .link drop-in: nothing to run; systemd-udevd applies it when a NIC is "
                                "added (the next boot)\n"), out);
                        break;
                case T_CMDLINE_KERNEL:
                        fprintf(out, _("  %skernel-install add %s /boot/vmlinuz-%s  (the boot entry takes "
                                       "/etc/kernel/cmdline when it is made)\n"),
                                chroot, k, k);
                        break;
                case T_CMDLINE_GRUB:
                        fprintf(out, _("  %supdate-grub  (or grub-mkconfig -o /boot/grub/grub.cfg)\n"),
                                chroot);
                        break;
                case T_CMDLINE_OWN:
                        fprintf(out, _("  add these words to the kernel command line of this system's boot "
                                       "loader: %s\n  (idlecfg found neither /etc/kernel/cmdline nor GRUB; "
                                       "%s holds the same words on one line, nothing else)\n"),
                                r->cmdline_words, OWN_CMDLINE_PATH);
                        break;
                case T_POWER:
                        /* once, for the table: the rule, unit and hook come with it */
                        if (!streq(x->path, PS_TABLE_PATH))
                                break;
                        if (host)
                                fputs(_("  systemctl daemon-reload && udevadm control --reload && idlecfg power-source "
                                        "boot  (or reboot)\n"), out);
                        else
                                fputs(_("  power-source switch: nothing to run, its unit decides when the target "
                                        "boots\n"), out);
                        break;
                case T_POWER_HOOK:
                case T_FIRSTBOOT:
                case T_OTHER:
                        break;
                }
        }
}

/* the command an installer runs after a file of KIND changed (NULL: none), untranslated, for JSON */
static char *next_command(const struct rootfs *rfs, const struct plan *p, enum target_kind kind)
{
        bool host = root_is_host(rfs->path);
        const char *k = p->kernel ? p->kernel : "KERNEL";
        _cleanup_free_ char *chroot = host ? xstrdup("") : xasprintf("chroot %s ", rfs->path);

        switch (kind) {
        case T_UDEV:
                return host ? xstrdup("udevadm control --reload && udevadm trigger --action=change") : NULL;
        case T_MODPROBE:
                return xasprintf("%supdate-initramfs -u -k %s", chroot, k);
        case T_TMPFILES:
                return host ? xstrdup("systemd-tmpfiles --create " TMPFILES_PATH) : NULL;
        case T_SYSCTL:
                return host ? xstrdup("sysctl -p " SYSCTL_PATH) : NULL;
        case T_NM:
                return host ? xstrdup("nmcli general reload conf") : NULL;
        case T_LINK:            /* nothing to run: udevd reads it when a NIC is added (boot) */
                return NULL;
        case T_CMDLINE_KERNEL:
                return xasprintf("%skernel-install add %s /boot/vmlinuz-%s", chroot, k, k);
        case T_CMDLINE_GRUB:
                return xasprintf("%supdate-grub", chroot);
        case T_POWER:
                return host ? xstrdup("systemctl daemon-reload && udevadm control --reload && "
                                      "idlecfg power-source boot") : NULL;
        case T_CMDLINE_OWN:     /* nothing to run: the words are in install's "cmdline" */
        case T_POWER_HOOK:
        case T_FIRSTBOOT:       /* nothing to run: systemd reads it when the image boots */
        case T_OTHER:
                break;
        }
        return NULL;
}

static const char *action_name(enum action a)
{
        switch (a) {
        case A_NONE: return "none";
        case A_WRITE: return "write";
        case A_RESTORE: return "restore";
        case A_DROP: return "drop";
        case A_KEEP_THEIRS: return "keep";
        case A_ADOPT: return "adopt";
        }
        return "none";
}

static const char *kind_key(enum target_kind k)
{
        switch (k) {
        case T_UDEV: return "udev";
        case T_MODPROBE: return "modprobe";
        case T_TMPFILES: return "tmpfiles";
        case T_SYSCTL: return "sysctl";
        case T_NM: return "networkmanager";
        case T_LINK: return "link";
        case T_CMDLINE_KERNEL:
        case T_CMDLINE_GRUB:
        case T_CMDLINE_OWN: return "cmdline";
        case T_POWER: return "power-source";
        case T_POWER_HOOK: return "power-source-hook";
        case T_FIRSTBOOT: return "firstboot";
        case T_OTHER: break;
        }
        return "other";
}

/* install --json: what was (or, with --dry-run, would be) done, and the words
 * of the kernel command line as an array; TEXT is what the text output says */
void install_print_json(const struct install_result *r, const struct rootfs *rfs, const struct plan *p,
                        bool dry_run, int changes, const char *text, FILE *out)
{
        struct json j;

        json_init(&j, out);
        json_begin_object(&j);
        json_kv_int(&j, "schema", 1);
        json_kv_string(&j, "version", PACKAGE_VERSION);
        json_kv_string(&j, "root", rfs->path);
        json_kv_string(&j, "profile", p->profile);
        json_kv_string(&j, "profile_reason", p->profile_reason);
        json_kv_string(&j, "fingerprint", p->fingerprint);
        json_kv_string(&j, "kernel", p->kernel);
        json_kv_string(&j, "kernel_source", p->kernel_source);
        json_kv_string(&j, "kernel_reason", p->kernel_reason);
        json_kv_bool(&j, "dry_run", dry_run);
        json_kv_bool(&j, "changed", changes > 0);
        json_key(&j, "files");
        json_begin_array(&j);
        for (size_t i = 0; i < r->n_files; i++) {
                const struct install_file *x = &r->files[i];
                if (!x->wanted && x->action == A_NONE)
                        continue;       /* nothing of ours wanted there, and nothing there */
                json_begin_object(&j);
                json_kv_string(&j, "path", x->path);
                json_kv_string(&j, "kind", kind_key(x->kind));
                json_kv_string(&j, "action", action_name(x->action));
                json_kv_int(&j, "settings", (long long) x->n_settings);
                json_end_object(&j);
        }
        json_end_array(&j);
        json_key(&j, "cmdline");
        if (r->cmdline_words) {
                _cleanup_free_ char *w = xstrdup(r->cmdline_words);
                const struct install_file *x = NULL;
                for (size_t i = 0; i < r->n_files && !x; i++)
                        if (r->files[i].kind >= T_CMDLINE_KERNEL && r->files[i].kind <= T_CMDLINE_OWN &&
                            r->files[i].wanted)
                                x = &r->files[i];
                json_begin_object(&j);
                json_kv_string(&j, "path", x ? x->path : NULL);
                json_kv_string(&j, "mechanism", !x ? NULL : x->kind == T_CMDLINE_KERNEL ? "kernel-cmdline" :
                                                x->kind == T_CMDLINE_GRUB ? "grub" : "file");
                json_key(&j, "words");
                json_begin_array(&j);
                for (char *save = NULL, *word = strtok_r(w, " ", &save); word; word = strtok_r(NULL, " ", &save))
                        json_string(&j, word);
                json_end_array(&j);
                json_end_object(&j);
        } else
                json_null(&j);
        json_key(&j, "next_steps");
        json_begin_array(&j);
        for (size_t i = 0; i < r->n_files && !dry_run; i++) {
                _cleanup_free_ char *cmd = NULL;
                if (r->files[i].action == A_WRITE || r->files[i].action == A_RESTORE)
                        cmd = next_command(rfs, p, r->files[i].kind);
                if (cmd)
                        json_string(&j, cmd);
        }
        json_end_array(&j);
        if (dry_run)
                json_kv_string(&j, "diff", text);
        else {
                _cleanup_free_ char *l = xstrdup(text);
                json_key(&j, "messages");
                json_begin_array(&j);
                for (char *save = NULL, *line = strtok_r(l, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
                        json_string(&j, line + strspn(line, " "));
                json_end_array(&j);
        }
        json_end_object(&j);
        json_finish(&j);
}
