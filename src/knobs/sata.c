/* knobs/sata.c: SATA link power management and AHCI port runtime PM, read from each port's own registers */
#include "config.h"

#include "knobs/knob.h"

/* AHCI 1.3.1 PxCMD and CAP bits, as drivers/ata/ahci.h names them */
#define PORT_CMD_HPCP   (1UL << 18)     /* hot-plug capable port */
#define PORT_CMD_MPSP   (1UL << 19)     /* mechanical presence switch attached */
#define PORT_CMD_ESP    (1UL << 21)     /* external SATA port */
#define HOST_CAP_SXS    (1UL << 5)      /* the HBA has external SATA ports */

/* our own hwdb key for ATA disks: they have no modalias */
static char *ata_key(const struct device *disk)
{
        return xasprintf("idlecfg-ata:%s:%s", strempty(kv_get(&disk->ids, "model")),
                         strempty(kv_get(&disk->ids, "firmware")));
}

enum port_kind {
        PORT_UNKNOWN,           /* no ahci_port_cmd (not AHCI, or a recording without it) */
        PORT_DUMMY,             /* PxCMD reads 0: outside the port map, libata's DUMMY port */
        PORT_INTERNAL,          /* none of HPCP, MPSP, ESP */
        PORT_EXTERNAL,          /* what the kernel marks ATA_PFLAG_EXTERNAL: HPCP, or ESP with CAP.SXS */
        PORT_SWITCH,            /* only MPSP: a bay with a presence switch, hot-plug by design */
};

static bool hex_value(const char *s, unsigned long *ret)
{
        char *end;

        if (!s || !*s)
                return false;
        errno = 0;
        *ret = strtoul(s, &end, 16);
        return errno == 0 && end != s && *end == '\0';
}

/* Mirrors ahci_mark_external_port() (drivers/ata/ahci.c, "ata: ahci: a
 * hotplug capable port is an external port", linux-ide 2024): external is
 * HPCP, or ESP on an HBA with CAP.SXS. A CAP we cannot read counts as SXS. We
 * add MPSP: the kernel ignores it, but a presence switch means a bay. */
static enum port_kind port_kind(const struct device *h, char **ret_what)
{
        unsigned long cmd, caps = 0;
        bool has_caps = hex_value(kv_get(&h->ids, "host_caps"), &caps);

        if (!hex_value(kv_get(&h->ids, "port_cmd"), &cmd)) {
                *ret_what = xstrdup("ahci_port_cmd not readable");
                return PORT_UNKNOWN;
        }
        if (cmd == 0 && streq_ptr(kv_get(&h->knobs, "port/power/runtime_status"), "suspended")) {
                /* ahci_port_suspend() stops the port's DMA and FIS engines (ST, FRE,
                 * CR, FR read 0); HPCP, MPSP, ESP and CPD are capability bits the
                 * firmware sets and keep their value: none is set */
                *ret_what = xstrdup("ahci_port_cmd 0 on a runtime-suspended port (its engines stopped): "
                                    "internal port (no HPCP, MPSP or ESP bit)");
                return PORT_INTERNAL;
        }
        if (cmd == 0) {
                *ret_what = xstrdup("ahci_port_cmd 0: a port outside the controller's port map (DUMMY)");
                return PORT_DUMMY;
        }
        if (cmd & PORT_CMD_HPCP) {
                *ret_what = xasprintf("ahci_port_cmd %lx: hot-plug capable port (PxCMD.HPCP)", cmd);
                return PORT_EXTERNAL;
        }
        if ((cmd & PORT_CMD_ESP) && (!has_caps || (caps & HOST_CAP_SXS))) {
                *ret_what = xasprintf("ahci_port_cmd %lx: external SATA port (PxCMD.ESP%s)", cmd,
                                      has_caps ? " with CAP.SXS" : "");
                return PORT_EXTERNAL;
        }
        if (cmd & PORT_CMD_MPSP) {
                *ret_what = xasprintf("ahci_port_cmd %lx: mechanical presence switch (PxCMD.MPSP), a hot-plug bay", cmd);
                return PORT_SWITCH;
        }
        *ret_what = xasprintf("ahci_port_cmd %lx: internal port (no HPCP, MPSP or ESP bit)", cmd);
        return PORT_INTERNAL;
}

static bool zpodd(const struct device *disk)
{
        return streq_ptr(kv_get(&disk->ids, "kind"), "optical") && streq_ptr(kv_get(&disk->ids, "zpodd"), "yes");
}

/* Linux 6.13 and later mark a port the firmware calls external (HPCP, or ESP
 * with CAP.SXS) ATA_FLAG_NO_LPM: the link stays at max_performance and a write
 * of link_power_management_policy is refused (EOPNOTSUPP). 6.1 knows no
 * external ports, 6.12 leaves their initial policy alone but takes the write
 * (ahci_update_initial_lpm_policy(), ata_scsi_lpm_store() in the three trees,
 * hwdb/knob-interfaces.txt). ahci.mask_port_ext (6.17 on) clears the mark. */
#define KERNEL_EXTERNAL_NO_LPM "6.13"

static bool port_masked(struct planctx *c, const struct device *h);

static bool kernel_refuses_external_lpm(struct planctx *c)
{
        return c->inv->kernel && kernel_compare(c->inv->kernel, KERNEL_EXTERNAL_NO_LPM) >= 0;
}

static void alpm(struct planctx *c)
{
        const struct device_list *l = &c->inv->classes[CL_SATA];
        const char *want = profile_value(c, "sata", "alpm");

        if (!want) {
                for (size_t i = 0; i < l->n; i++)
                        if (kv_find(&l->v[i].knobs, "link_power_management_policy")) {
                                plan_skip_keep(c, "sata.alpm", "sata", "alpm");
                                break;
                        }
                return;
        }
        for (size_t i = 0; i < l->n; i++) {
                const struct device *h = &l->v[i];
                const char *supported = kv_get(&h->knobs, "link_power_management_supported");
                const struct device *ctrl = pci_parent(c, h);
                const char *ctrl_alias = ctrl ? ctrl->modalias : NULL;
                _cleanup_free_ char *ext_what = NULL;
                bool nolpm = false, optical = false, external = false, masked = false;
                size_t disks = 0;
                struct hwdb_fact hf;

                if (!kv_find(&h->knobs, "link_power_management_policy"))
                        continue;
                if (!streq_ptr(kv_get(&h->ids, "proc_name"), "ahci")) {
                        plan_skip(c, h, "sata.alpm", xasprintf("skipped: not an AHCI host (%s)",
                                                               strempty(kv_get(&h->ids, "proc_name"))));
                        continue;
                }
                external = streq_ptr(kv_get(&h->ids, "proc_name"), "ahci") && port_kind(h, &ext_what) == PORT_EXTERNAL;
                masked = external && port_masked(c, h);
                if (supported && streq(supported, "0") && !masked) {
                        plan_skip(c, h, "sata.alpm",
                                  external ? xasprintf("skipped: the kernel refuses LPM on this port "
                                                       "(link_power_management_supported 0): %s, a port the firmware "
                                                       "marks external; only ahci.mask_port_ext clears the mark "
                                                       "(sata.mask_port_ext)", ext_what)
                                           : xstrdup("skipped: the kernel says this port does not support LPM "
                                                     "(link_power_management_supported 0: the HBA has none of "
                                                     "Partial, Slumber and DevSleep, as QEMU's AHCI, or the "
                                                     "firmware marks the port external)"));
                        continue;
                }
                /* the machine (ahci_broken_lpm) or the controller (AHCI board flags) */
                if ((hwdb_fact(c, kv_get(&c->inv->platform, "modalias"), "IDLECFG_SATA_ALPM", &hf) ||
                     hwdb_fact(c, ctrl_alias, "IDLECFG_SATA_ALPM", &hf)) && streq(hf.value, "deny")) {
                        _cleanup_free_ char *why = fact_reason(&hf);
                        plan_skip(c, h, "sata.alpm", xasprintf("skipped: %s", why));
                        continue;
                }
                for (size_t k = 0; k < h->n_children && !nolpm; k++) {
                        const struct device *disk = &h->children[k];
                        _cleanup_free_ char *key = ata_key(disk);
                        _cleanup_free_ char *hkey = ctrl_alias ? xasprintf("idlecfg-on:%s|%s", ctrl_alias, key) : NULL;
                        struct hwdb_fact f;

                        disks++;
                        optical = optical || streq_ptr(kv_get(&disk->ids, "kind"), "optical");
                        /* the drive, or the drive behind this controller (NO_LPM_ON_ATI) */
                        if ((hwdb_fact(c, key, "IDLECFG_SATA_ALPM", &f) && streq(f.value, "deny")) ||
                            (hwdb_fact(c, hkey, "IDLECFG_SATA_ALPM", &f) && streq(f.value, "deny"))) {
                                _cleanup_free_ char *why = fact_reason(&f);
                                plan_skip(c, h, "sata.alpm", xasprintf("skipped: disk %s %s: %s",
                                                                       strempty(kv_get(&disk->ids, "model")),
                                                                       strempty(kv_get(&disk->ids, "firmware")), why));
                                nolpm = true;
                        }
                }
                if (nolpm)
                        continue;
                if (disks == 0) {
                        _cleanup_free_ char *what = NULL, *why = NULL;
                        enum port_kind k = port_kind(h, &what);

                        if (k != PORT_INTERNAL) {
                                plan_skip(c, h, "sata.alpm",
                                          xasprintf("skipped: no disk on this port and %s: LPM would stop hot-plug "
                                                    "detection (https://github.com/pop-os/system76-power/issues/417)",
                                                    what));
                                continue;
                        }
                        /* AHCI 1.3.1 7.3.4: LPM and hot-plug removal do not mix; a port
                         * that cannot be hot-plugged loses nothing by it */
                        why = profile_reason(c, "sata", "alpm");
                        plan_device(c, h, "sata.alpm", "link_power_management_policy", want,
                                    xasprintf("%s; empty %s: no hot-plug event to lose", why, what));
                        continue;
                }
                if (external && !masked && kernel_refuses_external_lpm(c)) {
                        plan_skip(c, h, "sata.alpm",
                                  xasprintf("skipped: %s: kernel %s (%s and later) keeps a port the firmware marks "
                                            "external at max_performance and refuses the write; nothing masks it "
                                            "(sata.mask_port_ext)", ext_what, c->inv->kernel, KERNEL_EXTERNAL_NO_LPM));
                        continue;
                }
                {
                        _cleanup_free_ char *why = profile_reason(c, "sata", "alpm");
                        plan_device(c, h, "sata.alpm", "link_power_management_policy", want,
                                    masked ? xasprintf("%s; %s, but ahci.mask_port_ext (planned) clears the mark: "
                                                       "the kernel allows LPM there", why, ext_what)
                                    : optical ? xasprintf("%s; optical drive on this port (ZPODD powers it off "
                                                          "by itself where the firmware supports it)", why)
                                            : xstrdup(why));
                }
        }
}

/* The ATA port is a device without bus or class (libata-transport.c): udev
 * sees it through its ata_port class device, whose "device" link points back
 * at it. The setting names that class device and writes device/power/control. */
static void plan_port(struct planctx *c, const struct device *h, const char *want, char *reason_take)
{
        const char *port = kv_get(&h->ids, "port");
        _cleanup_free_ char *devpath = xstrdup(h->anchor);
        char *slash = strrchr(devpath, '/');
        struct device p = { .class = "ata-port" };
        const char *cur = kv_get(&h->knobs, "port/power/control");

        if (!slash || !port) {
                free(reason_take);
                return;
        }
        *slash = '\0';          /* .../ataN/hostM -> .../ataN */
        p.name = (char *) port;
        p.devpath = xasprintf("%s/ata_port/%s", devpath, port);
        if (cur)
                kv_add(&p.knobs, "device/power/control", cur);
        plan_device(c, &p, "sata.runtime_pm", "device/power/control", want, reason_take);
        free(p.devpath);
        kv_free(&p.knobs);
}

/* [sata] runtime_pm: the ports nobody can plug a disk into, and zero-power optical drives */
static void ports_runtime_pm(struct planctx *c)
{
        const struct device_list *l = &c->inv->classes[CL_SATA];
        const char *want = profile_value(c, "sata", "runtime_pm");
        const char *dmi = kv_get(&c->inv->platform, "modalias");
        struct hwdb_fact pf;
        bool platform_deny;
        bool any = false;

        for (size_t i = 0; i < l->n && !any; i++)
                any = kv_find(&l->v[i].knobs, "port/power/control") != NULL;
        if (!want) {
                if (any)
                        plan_skip_keep(c, "sata.runtime_pm", "sata", "runtime_pm");
                return;
        }
        platform_deny = hwdb_fact(c, dmi, "IDLECFG_AHCI_RUNTIME_PM", &pf) && streq(pf.value, "deny");
        for (size_t i = 0; i < l->n; i++) {
                const struct device *h = &l->v[i];
                _cleanup_free_ char *what = NULL;
                enum port_kind k;
                size_t disks = 0, odd = 0;

                if (!kv_find(&h->knobs, "port/power/control"))
                        continue;
                if (!streq_ptr(kv_get(&h->ids, "proc_name"), "ahci")) {
                        /* an SFF/PATA port (ata_piix, ata_generic, an AMT IDE-R port): no
                         * PxCMD tells whether a drive can be attached to it */
                        plan_skip(c, h, "sata.runtime_pm",
                                  xasprintf("skipped: not an AHCI port (%s): no PxCMD register says whether a "
                                            "drive can appear on it, and a suspended port does not notice one "
                                            "(libata freezes a port before suspending it)",
                                            strempty(kv_get(&h->ids, "proc_name"))));
                        continue;
                }
                if (streq(want, "on")) {
                        plan_port(c, h, want, profile_reason(c, "sata", "runtime_pm"));
                        continue;
                }
                if (platform_deny) {
                        _cleanup_free_ char *why = fact_reason(&pf);
                        plan_skip(c, h, "sata.runtime_pm", xasprintf("skipped: %s", why));
                        continue;
                }
                for (size_t d = 0; d < h->n_children; d++) {
                        const struct device *disk = &h->children[d];
                        disks++;
                        if (zpodd(disk))
                                odd++;
                        else if (streq_ptr(kv_get(&disk->ids, "kind"), "optical"))
                                plan_skip(c, disk, "sata.runtime_pm",
                                          xstrdup("skipped: optical drive without zero-power ODD support (libata "
                                                    "exposes no power/pm_qos_no_power_off on its ATA device: no ACPI "
                                                    "power-off or not a slot/drawer drive)"));
                        else
                                /* disk runtime PM: idlecfg(8), DISKS AND PORTS */
                                plan_skip(c, disk, "sata.runtime_pm",
                                          xstrdup("skipped: disk runtime PM spins the disk down and up on every "
                                                    "poll (smartd, udisks: https://github.com/linrunner/TLP/issues/848) "
                                                    "and has frozen laptops (https://github.com/rickysarraf/"
                                                    "laptop-mode-tools/issues/123): never planned"));
                }
                if (disks && disks == odd) {
                        _cleanup_free_ char *why = profile_reason(c, "sata", "runtime_pm");
                        for (size_t d = 0; d < h->n_children; d++) {
                                const struct device *disk = &h->children[d];
                                plan_device(c, disk, "sata.runtime_pm", "power/control", want,
                                            xasprintf("%s; zero-power ODD: libata exposes power/pm_qos_no_power_off on "
                                                      "its ATA device, so ACPI can cut the drive's power once it "
                                                      "and its port suspend (drivers/ata/libata-zpodd.c)", why));
                        }
                        plan_port(c, h, want, xasprintf("%s; only a zero-power optical drive on this port: the port "
                                                        "must suspend for ZPODD to power the drive off", why));
                        continue;
                }
                if (disks) {
                        plan_skip(c, h, "sata.runtime_pm",
                                  xstrdup("skipped: a disk or drive on this port: AHCI runtime PM is suspected in resume freezes "
                                            "(TLP 1.6.0: https://github.com/linrunner/TLP/issues/593 #606 #698)"));
                        continue;
                }
                k = port_kind(h, &what);
                if (k != PORT_INTERNAL) {
                        plan_skip(c, h, "sata.runtime_pm",
                                  xasprintf("skipped: no disk on this port and %s: a suspended port would miss "
                                            "the disk plugged in next", what));
                        continue;
                }
                {
                        _cleanup_free_ char *why = profile_reason(c, "sata", "runtime_pm");
                        plan_port(c, h, want, xasprintf("%s; empty %s: nothing can appear on it", why, what));
                }
        }
}

/* What holds DISK (sda) for the target: the root filesystem, swap, an fstab mount; NULL if nothing */
static const char *fixed_use(const struct storage *st, const char *disk)
{
        const char *v;

        if (!disk)
                return NULL;
        if (streq_ptr(st->root_disk, disk))
                return "the root filesystem";
        if ((v = kv_get(&st->used_disks, disk)))
                return v;
        return NULL;
}

/* Will mask_port_ext() mask port H for the target kernel: an external AHCI
 * port holding a disk the system needs, the profile asks for it, and the
 * target kernel's ahci has the parameter? */
static bool port_masked(struct planctx *c, const struct device *h)
{
        const char *want = profile_value(c, "sata", "mask_port_ext");
        const char *port_no = kv_get(&h->ids, "port_no");
        const char *use = NULL;
        unsigned long no;
        char *end;

        if (!want || !streq(want, "yes") || !kv_get(&h->ids, "controller") || !port_no || !c->mc ||
            !modctx_has_param(c->mc, "ahci", "mask_port_ext"))
                return false;
        errno = 0;
        no = strtoul(port_no, &end, 10);
        if (errno || end == port_no || *end || no < 1 || no > 32)
                return false;
        for (size_t d = 0; d < h->n_children && !use; d++)
                use = fixed_use(&c->inv->storage, kv_get(&h->children[d].ids, "block"));
        return use != NULL;
}

/* Ports the firmware marks external (HPCP or ESP) hold the kernel at
 * max_performance (ATA_FLAG_NO_LPM, "ata: ahci: do not enable LPM on external
 * ports"; the write is refused since 6.13). Where such a port holds a disk the
 * target cannot live without, nobody hot-plugs it: Linux 6.17's
 * ahci.mask_port_ext= (mask_port_map's format) lets the kernel ignore the bit. */
static void mask_port_ext(struct planctx *c)
{
        const struct device_list *l = &c->inv->classes[CL_SATA];
        const char *want = profile_value(c, "sata", "mask_port_ext");
        struct strbuf value = {}, ports = {};
        const char *last_ctrl = NULL;
        unsigned long mask = 0;

        for (size_t i = 0; i < l->n; i++) {
                const struct device *h = &l->v[i];
                const char *ctrl = kv_get(&h->ids, "controller");
                _cleanup_free_ char *what = NULL;
                const char *use = NULL, *disk_name = NULL;
                unsigned long no;
                char *end;

                if (!streq_ptr(kv_get(&h->ids, "proc_name"), "ahci") || port_kind(h, &what) != PORT_EXTERNAL)
                        continue;
                for (size_t d = 0; d < h->n_children && !use; d++) {
                        disk_name = kv_get(&h->children[d].ids, "block");
                        use = fixed_use(&c->inv->storage, disk_name);
                }
                if (!use)
                        continue;
                if (!want || streq(want, "no")) {
                        _cleanup_free_ char *why = profile_reason(c, "sata", "mask_port_ext");
                        plan_skip(c, h, "sata.mask_port_ext",
                                  xasprintf("skipped: %s: %s holds %s, but %s: its link stays at max_performance",
                                            why, disk_name, use, what));
                        continue;
                }
                errno = 0;
                no = strtoul(strempty(kv_get(&h->ids, "port_no")), &end, 10);
                if (!ctrl || errno || end == kv_get(&h->ids, "port_no") || *end || no < 1 || no > 32) {
                        plan_skip(c, h, "sata.mask_port_ext",
                                  xasprintf("skipped: %s holds %s on an external port (%s), but the port's number "
                                            "on its controller is unknown (ata_port port_no)", disk_name, use, what));
                        continue;
                }
                if (!streq_ptr(last_ctrl, ctrl)) {
                        if (last_ctrl)
                                sb_appendf(&value, "%s=0x%lx,", last_ctrl, mask);
                        last_ctrl = ctrl;
                        mask = 0;
                }
                mask |= 1UL << (no - 1);
                sb_appendf(&ports, "%s%s (%s port %lu, %s: %s)", ports.len ? ", " : "", h->name, ctrl, no - 1,
                           disk_name, use);
        }
        if (!last_ctrl) {
                sb_free(&value);
                sb_free(&ports);
                return;
        }
        sb_appendf(&value, "%s=0x%lx", last_ctrl, mask);
        if (c->mc && (modctx_state(c->mc, "ahci") == MOD_BUILTIN || modctx_state(c->mc, "ahci") == MOD_LOADABLE) &&
            !modctx_has_param(c->mc, "ahci", "mask_port_ext"))
                plan_skip(c, NULL, "sata.mask_port_ext",
                          xasprintf("skipped: kernel %s has no ahci.mask_port_ext (Linux 6.17 and later): the firmware "
                                    "marks the ports of %s external, so kernels that keep external ports without "
                                    "LPM hold them at max_performance; with 6.17 this would plan "
                                    "ahci.mask_port_ext=%s", c->inv->kernel, sb_str(&ports), sb_str(&value)));
        else {
                _cleanup_free_ char *why = profile_reason(c, "sata", "mask_port_ext");
                plan_param(c, NULL, "sata.mask_port_ext", "ahci", "mask_port_ext", sb_str(&value),
                           xasprintf("%s; the firmware marks these ports external but they hold disks the system "
                                     "needs, so nobody hot-plugs them: %s (powertop issue 204: +75%% idle power when "
                                     "such ports lose LPM)", why, sb_str(&ports)));
        }
        sb_free(&value);
        sb_free(&ports);
}

void knob_sata(struct planctx *c)
{
        alpm(c);
        ports_runtime_pm(c);
        mask_port_ext(c);
}

static const char *const ch_alpm[] = {
        "max_performance", "medium_power", "med_power_with_dipm", "min_power_with_partial", "min_power", "keep", NULL
};

static const char *const ch_runtime_pm[] = { "auto", "on", "keep", NULL };
static const char *const ch_yes_no[] = { "yes", "no", NULL };

static const struct profile_key keys[] = {
        KEY_CHOICE_SOURCE("alpm", ch_alpm),
        KEY_CHOICE("runtime_pm", ch_runtime_pm),
        KEY_CHOICE("mask_port_ext", ch_yes_no),
};

static const struct knob_rule rules[] = {
        RULE_WORDS("sata.alpm", "max_performance|medium_power|med_power_with_dipm|min_power_with_partial|min_power",
                   "link_power_management_policy", NULL),
        /* power/control of a zero-power optical drive; device/power/control of an
         * ATA port, reached through its ata_port class device */
        RULE_WORDS("sata.runtime_pm", "auto|on", "power/control|device/power/control", NULL),
        /* PCI_NAME=0xMASK[,...]: the ports whose external bit the kernel ignores (6.17) */
        { "sata.mask_port_ext", KNOB_PORTMASK, NULL, 0, 0, NULL, "ahci.mask_port_ext" },
};

static const struct knob_property properties[] = {
        PROP_WORDS("IDLECFG_SATA_ALPM", "deny", "link power management is broken on this drive"),
        PROP_WORDS("IDLECFG_AHCI_RUNTIME_PM", "deny", "runtime PM of the AHCI controller and its ports breaks USB on this platform"),
};

static const struct knob_attr attrs[] = {
        { "sata", "link_power_management_policy" }, { "sata", "link_power_management_supported" },
        { "disk", "power/control" }, { "disk", "power/autosuspend_delay_ms" }, { "disk", "power/runtime_status" },
};

/* the SATA defaults at boot, shown by detect */
static const char *const modules_shown[] = { "ahci", "libata", NULL };

/* verify and measure: whose runtime PM a device's power/control is. "ata-port"
 * is the ATA port (ataN, reached through its ata_port class device): a planned
 * port's setting names it; detect hangs its power/control on the SATA host. */
static const struct knob_runtime_pm runtime_pm[] = {
        { "disk", "sata.runtime_pm" }, { "sata", "sata.runtime_pm" }, { "ata-port", "sata.runtime_pm" },
};

/* the ATA port above a SATA host (detect reads ataN/power/control); the plan
 * names a planned port by its ata_port class device, a skip by the host */
static char *port_blocker(const struct device *d, char **ret_devpath)
{
        const char *v = kv_get(&d->knobs, "port/power/control"), *port = kv_get(&d->ids, "port");
        _cleanup_free_ char *dir = NULL;
        char *slash;

        if (!v || !streq(v, "on"))
                return NULL;
        dir = xstrdup(strempty(d->anchor));
        slash = strrchr(dir, '/');
        if (slash && port) {
                *slash = '\0';         /* .../ataN/hostM -> .../ataN */
                *ret_devpath = xasprintf("%s/ata_port/%s", dir, port);
        }
        return xasprintf(_("runtime PM of ATA port %s is off (power/control = on)"), strempty(port));
}

/* measure: the setting of an ATA port's power/control (DEVPATH .../ataN) is
 * not on the port: a planned port's names its ata_port class device
 * (.../ataN/ata_port/ataN, attribute device/power/control), a skip the SATA
 * host below the port (.../ataN/hostM/...) */
static bool port_setting(const struct setting *s, const char *devpath)
{
        size_t n = strlen(devpath);

        if (!s->device || !startswith(s->device, devpath))
                return false;
        if (streq_ptr(s->attr, "device/power/control") && s->device[n] == '/' && strchr(s->device + n + 1, '/') &&
            !strchr(strchr(s->device + n + 1, '/') + 1, '/'))
                return true;
        return !s->value && streq_ptr(s->device_class, "sata") && streq_ptr(s->knob, "sata.runtime_pm") &&
               startswith(s->device + n, "/host");
}

/* Is host D's LPM refused because the firmware marks its AHCI port external
 * (link_power_management_supported 0, the kernel's ATA_FLAG_NO_LPM of 6.13 and
 * later): then no policy write helps, only ahci.mask_port_ext (6.17) does.
 * *ret_what (free it) says what marks the port. */
static bool lpm_refused_external(const struct device *d, char **ret_what)
{
        const char *sup = kv_get(&d->knobs, "link_power_management_supported");

        return sup && streq(sup, "0") && streq_ptr(kv_get(&d->ids, "proc_name"), "ahci") &&
               port_kind(d, ret_what) == PORT_EXTERNAL;
}

static char *alpm_blocker(const struct device *d, char **ret_devpath)
{
        const char *v = kv_get(&d->knobs, "link_power_management_policy");
        _cleanup_free_ char *what = NULL;

        if (!v || !streq(v, "max_performance") || lpm_refused_external(d, &what))
                return NULL;
        return xstrdup(_("SATA link power management is off (link_power_management_policy = max_performance)"));
}

static char *external_blocker(const struct device *d, char **ret_devpath)
{
        const char *v = kv_get(&d->knobs, "link_power_management_policy");
        _cleanup_free_ char *what = NULL;

        if (!v || !streq(v, "max_performance") || !lpm_refused_external(d, &what))
                return NULL;
        return xasprintf(_("SATA link power management is off (link_power_management_policy = max_performance) "
                           "and the kernel refuses it on this port (%s): only ahci.mask_port_ext, which clears "
                           "the external mark, changes that"), what);
}

static const struct knob_blocker blockers[] = {
        BLOCKER_CHECK("sata", "sata.runtime_pm", port_blocker),
        BLOCKER_CHECK("sata", "sata.alpm", alpm_blocker),
        BLOCKER_CHECK("sata", "sata.mask_port_ext", external_blocker),
};

const struct knob_family knob_family_sata = {
        .name = "sata",
        .section = "sata",
        KNOB_LIST(keys, keys),
        KNOB_LIST(rules, rules),
        KNOB_LIST(properties, properties),
        KNOB_LIST(attrs, attrs),
        .modules_shown = modules_shown,
        KNOB_LIST(runtime_pm, runtime_pm),
        KNOB_LIST(blockers, blockers),
        .runtime_pm_placed = port_setting,
        .plan = knob_sata,
};
