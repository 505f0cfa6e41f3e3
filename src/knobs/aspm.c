/* knobs/aspm.c: PCIe ASPM: the global policy and the per-link L1 substate files */
#include "config.h"

#include "knobs/knob.h"
#include "root/rootfs.h"

static const struct { const char *state, *file; } link_files[] = {
        { "l0s", "link/l0s_aspm" }, { "l1", "link/l1_aspm" }, { "l1_1", "link/l1_1_aspm" },
        { "l1_2", "link/l1_2_aspm" }, { "clkpm", "link/clkpm" },
        { "l1_1_pcipm", "link/l1_1_pcipm" }, { "l1_2_pcipm", "link/l1_2_pcipm" },
};

/* is STATE in the comma-separated LIST? */
static bool in_list(const char *list, const char *state)
{
        size_t n = strlen(state);

        for (const char *p = list; p && *p; p += strcspn(p, ",") + (p[strcspn(p, ",")] ? 1 : 0))
                if (strncmp(p, state, n) == 0 && (p[n] == ',' || p[n] == '\0'))
                        return true;
        return false;
}

static bool cmdline_has(const char *cmdline, const char *word)
{
        size_t n = strlen(word);

        for (const char *p = cmdline; p && (p = strstr(p, word)); p += n)
                if ((p == cmdline || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
                        return true;
        return false;
}

/* The link states the kernel's policy POLICY enables on a link it may
 * control (pcie_aspm.c, policy_to_aspm_state(), policy_to_clkpm_state()):
 * "1" for these, "0" for every state with performance; NULL for default,
 * which keeps the firmware's setup */
static const char *policy_states(const char *policy, const char **ret_value)
{
        *ret_value = "1";
        if (streq_ptr(policy, "powersave"))
                return "l0s,l1,clkpm";
        if (streq_ptr(policy, "powersupersave"))
                return "l0s,l1,l1_1,l1_2,l1_1_pcipm,l1_2_pcipm,clkpm";
        *ret_value = "0";
        if (streq_ptr(policy, "performance"))
                return "l0s,l1,l1_1,l1_2,l1_1_pcipm,l1_2_pcipm,clkpm";
        return NULL;
}

/* The per-link files: the hwdb's allow and deny entries (where [pcie_aspm]
 * links = yes), and, where the global policy is not written (POLICY, its
 * reason WHY), the states that policy would set, on every link that has the
 * file (a file exists only for a state the link supports). A deny wins. */
static void per_link(struct planctx *c, bool entries, const char *policy, const char *why)
{
        const struct device_list *l = &c->inv->classes[CL_PCI];
        const char *pv;
        const char *pstates = policy_states(policy, &pv);

        for (size_t i = 0; i < l->n; i++) {
                const struct device *d = &l->v[i];
                struct hwdb_fact allow = {}, deny = {};
                bool has_allow = entries && hwdb_fact(c, d->modalias, "IDLECFG_ASPM_ALLOW", &allow);
                bool has_deny = entries && hwdb_fact(c, d->modalias, "IDLECFG_ASPM_DENY", &deny);

                if (!has_allow && !has_deny && !pstates)
                        continue;
                for (size_t k = 0; k < ELEMENTSOF(link_files); k++) {
                        const struct kv *cur = kv_find(&d->knobs, link_files[k].file);
                        if (!cur)
                                continue;       /* no such file: link without the state, or kernel < 5.5 */
                        if (has_deny && in_list(deny.value, link_files[k].state))
                                plan_device(c, d, "pcie_aspm.link", link_files[k].file, "0", fact_reason(&deny));
                        else if (has_allow && in_list(allow.value, link_files[k].state))
                                plan_device(c, d, "pcie_aspm.link", link_files[k].file, "1", fact_reason(&allow));
                        else if (pstates && in_list(pstates, link_files[k].state))
                                plan_device(c, d, "pcie_aspm.link", link_files[k].file, pv, xstrdup(why));
                }
        }
}

/* An AMD machine that suspends to idle (/sys/power/mem_sleep offers no
 * deep, or has [s2idle] as its default): AMD's s2idle checker
 * (amd-debug-tools, prerequisites, check_aspm) fails any pcie_aspm policy
 * but default ("ASPM policy set to ..."), so the policy is left alone there
 * and the links get its states one by one, unless an hwdb entry for the
 * machine (IDLECFG_ASPM_POLICY=allow: where its vendor documents otherwise)
 * lets the policy through. Unknown (a target root, no mem_sleep): not such
 * a machine. */
static char *amd_s2idle(struct planctx *c, const char *policy)
{
        const char *ms = kv_get(&c->inv->platform, "mem_sleep");
        struct hwdb_fact f;

        if (!streq_ptr(kv_get(&c->inv->platform, "cpu_vendor"), "AMD") || !ms || streq(policy, "default") ||
            (!strstr(ms, "[s2idle]") && strstr(ms, "deep")))
                return NULL;
        if (hwdb_fact(c, kv_get(&c->inv->platform, "modalias"), "IDLECFG_ASPM_POLICY", &f) &&
            streq(f.value, "allow"))
                return NULL;
        return xasprintf("an AMD machine that suspends to idle (/sys/power/mem_sleep: %s): AMD's s2idle checker "
                         "(amd-debug-tools) fails any pcie_aspm policy but default, so the policy stays and each "
                         "link gets its states", ms);
}

/* Every PCIe link has a PCI-to-PCI bridge (class 0x0604: a root or switch
 * port) at its upstream end; without one the machine has no link for ASPM to
 * act on (a PCI-only chipset such as QEMU's i440fx, a virtual machine with
 * integrated virtio devices): the policy changes nothing there, and QEMU's pc
 * machine's kernel even refuses it, at boot and at run time (make check-vm). */
static bool has_pcie_port(struct planctx *c)
{
        const struct device_list *l = &c->inv->classes[CL_PCI];

        for (size_t i = 0; i < l->n; i++)
                if (startswith(strempty(kv_get(&l->v[i].ids, "class")), "0604"))
                        return true;
        return false;
}

/* Is POLICY the target kernel's built-in default (CONFIG_PCIEASPM_DEFAULT and
 * its siblings in /boot/config-RELEASE), with no pcie_aspm.policy= on the
 * command line? Then writing it changes nothing: skipped here, saying why.
 * Where the configuration is not known and POLICY is default, *RET_UNKNOWN
 * says so for the reason: the word and the line change nothing on a kernel
 * built with CONFIG_PCIEASPM_DEFAULT, and bring the firmware's setup back on
 * one built with another policy, which is what the profile asks for. */
static bool kernel_default_policy(struct planctx *c, const char *policy, char **ret_unknown)
{
        static const struct { const char *option, *policy; } defaults[] = {
                { "CONFIG_PCIEASPM_DEFAULT", "default" },
                { "CONFIG_PCIEASPM_POWERSAVE", "powersave" },
                { "CONFIG_PCIEASPM_POWER_SUPERSAVE", "powersupersave" },
                { "CONFIG_PCIEASPM_PERFORMANCE", "performance" },
        };

        if (c->cmdline && strstr(c->cmdline, "pcie_aspm.policy="))
                return false;
        for (size_t i = 0; i < ELEMENTSOF(defaults); i++) {
                _cleanup_free_ char *file = NULL;
                int kr = 0;
                const char *v = knob_kconfig_option(c, defaults[i].option, &file, &kr);

                if (!v) {
                        /* no config in the root: not known */
                        if (streq(policy, "default"))
                                *ret_unknown =
                                        !file ? xstrdup("the target kernel is unknown")
                                        : kr < 0 && kr != -ENOENT && kr != -ENOTDIR
                                                ? xasprintf("%s cannot be read", file)
                                                : xasprintf("%s is not in the root", file);
                        return false;
                }
                if (!streq(v, "yes"))
                        continue;
                if (!streq(defaults[i].policy, policy))
                        return false;
                plan_skip(c, NULL, "pcie_aspm.policy",
                          xasprintf("skipped: %s is the target kernel's default policy already (%s=y in %s): "
                                    "nothing to write, no boot-loader step", policy, defaults[i].option, file));
                return true;
        }
        return false;
}

void knob_aspm(struct planctx *c)
{
        const char *policy = profile_value(c, "pcie_aspm", "policy");
        const char *links = profile_value(c, "pcie_aspm", "links");
        const char *cur = kv_get(&c->inv->modparams, "pcie_aspm.policy");
        _cleanup_free_ char *selected = NULL, *amd = NULL, *link_why = NULL, *unknown = NULL;

        if (cmdline_has(c->cmdline, "pcie_aspm=off")) {
                plan_skip(c, NULL, "pcie_aspm.policy",
                          xstrdup("skipped: the kernel is booted with pcie_aspm=off: the firmware's ASPM setup is left alone"));
                return;
        }
        if (policy && !has_pcie_port(c))
                plan_skip(c, NULL, "pcie_aspm.policy",
                          xstrdup("skipped: no PCI-to-PCI bridge (class 0604) on this machine, so no PCIe link "
                                  "for ASPM to act on: the policy would change nothing"));
        else if (policy && kernel_default_policy(c, policy, &unknown))
                ;
        else if (policy && (amd = amd_s2idle(c, policy))) {
                _cleanup_free_ char *why = profile_reason(c, "pcie_aspm", "policy");
                plan_skip(c, NULL, "pcie_aspm.policy", xasprintf("skipped: %s", amd));
                link_why = xasprintf("%s, per link: %s", why, amd);
        } else if (policy) {
                if (cur)
                        parse_selected(cur, &selected);
                if (!cur && c->inv->rfs->host)
                        plan_skip(c, NULL, "pcie_aspm.policy",
                                  xstrdup("skipped: /sys/module/pcie_aspm/parameters/policy is missing: "
                                            "the kernel has no ASPM support (CONFIG_PCIEASPM)"));
                else {
                        /* the command line for boot; tmpfiles for the running kernel */
                        _cleanup_free_ char *why = profile_reason(c, "pcie_aspm", "policy");
                        _cleanup_free_ char *note = unknown ? xasprintf(
                                "; %s: this changes nothing where the kernel is built with CONFIG_PCIEASPM_DEFAULT "
                                "(its policy already), and brings the firmware's setup back where it is built "
                                "with another policy", unknown) : xstrdup("");
                        plan_global(c, "pcie_aspm.policy", "pcie_aspm", "policy", policy, selected, MECH_CMDLINE,
                                    xasprintf("%s%s", why, note));
                        plan_global(c, "pcie_aspm.policy", "pcie_aspm", "policy", policy, selected, MECH_TMPFILES,
                                    xasprintf("%s; at run time too (the write fails where the firmware "
                                              "denies the OS ASPM control)%s", why, note));
                }
        } else
                plan_skip_keep(c, "pcie_aspm.policy", "pcie_aspm", "policy");
        if ((links && streq(links, "yes")) || link_why)
                per_link(c, links && streq(links, "yes"), link_why ? policy : NULL, link_why);
}

static const char *const ch_policy[] = { "default", "performance", "powersave", "powersupersave", "keep", NULL };
static const char *const ch_links[] = { "yes", "no", NULL };

static const struct profile_key keys[] = {
        KEY_CHOICE_SOURCE("policy", ch_policy),
        KEY_CHOICE("links", ch_links),
};

static const struct knob_rule rules[] = {
        RULE_WORDS("pcie_aspm.policy", "default|performance|powersave|powersupersave", NULL, "pcie_aspm.policy"),
        /* pcie_aspm=off leaves the firmware's setup alone; "force" is never
         * written: it enables ASPM where the firmware does not declare it */
        RULE_WORDS("pcie_aspm.mode", "off", NULL, "pcie_aspm"),
        RULE_WORDS("pcie_aspm.link", "0|1",
                   "link/l0s_aspm|link/l1_aspm|link/l1_1_aspm|link/l1_2_aspm|link/clkpm|link/l1_1_pcipm|link/l1_2_pcipm",
                   NULL),
};

#define LINK_STATES "l0s|l1|l1_1|l1_2|clkpm|l1_1_pcipm|l1_2_pcipm"
static const struct knob_property properties[] = {
        PROP_LIST("IDLECFG_ASPM_ALLOW", LINK_STATES, "PCIe link states known to be safe on this link"),
        PROP_LIST("IDLECFG_ASPM_DENY", LINK_STATES, "PCIe link states never to enable on this link"),
        PROP_WORDS("IDLECFG_ASPM_POLICY", "allow",
                   "this AMD machine's vendor documents a pcie_aspm policy for it: written although it suspends to idle"),
};

static const struct knob_attr attrs[] = {
        { "pci", "link/clkpm" }, { "pci", "link/l0s_aspm" }, { "pci", "link/l1_aspm" }, { "pci", "link/l1_1_aspm" },
        { "pci", "link/l1_2_aspm" }, { "pci", "link/l1_1_pcipm" }, { "pci", "link/l1_2_pcipm" },
};

static const char *const modules[] = { "pcie_aspm", NULL };

static const struct knob_blocker blockers[] = {
        BLOCKER("pci", "pcie_aspm.link", "link/l1_aspm", "0",
                N_("ASPM L1 is disabled on this link (link/l1_aspm = 0)")),
};

const struct knob_family knob_family_aspm = {
        .name = "pcie_aspm",
        .section = "pcie_aspm",
        KNOB_LIST(keys, keys),
        KNOB_LIST(rules, rules),
        KNOB_LIST(properties, properties),
        KNOB_LIST(attrs, attrs),
        .modules = modules,
        KNOB_LIST(blockers, blockers),
        .plan = knob_aspm,
};
