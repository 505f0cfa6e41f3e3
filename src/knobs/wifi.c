/* knobs/wifi.c: 802.11 power save, through NetworkManager's defaults or the driver's parameter */
#include "config.h"

#include <dirent.h>
#include <fcntl.h>

#include "knobs/knob.h"
#include "root/rootfs.h"

#define NM_CONF_MAX (1u << 20)  /* a NetworkManager conf.d file */

/* NetworkManager in the target: its daemon, wherever the distribution puts it */
static const char *const nm_paths[] = {
        "/usr/sbin/NetworkManager", "/usr/bin/NetworkManager", "/sbin/NetworkManager",
};
static const char *const nm_conf_dirs[] = { "/etc/NetworkManager/conf.d" };

static bool has_networkmanager(struct planctx *c, const char **ret_path)
{
        for (size_t i = 0; i < ELEMENTSOF(nm_paths); i++) {
                _cleanup_close_ int fd = rootfs_openat(c->inv->rfs, nm_paths[i], O_PATH);
                if (fd >= 0) {
                        *ret_path = nm_paths[i];
                        return true;
                }
        }
        return false;
}

/* The conf.d files of /etc read after ours that set wifi.powersave too: of two
 * files, the sections of the later one win (NetworkManager.conf(5)), so the
 * administrator's own "zz-wifi.conf" beats idlecfg, as it should, but the plan
 * says so. The files of /usr/lib and /run are read before /etc. */
static void warn_later_files(struct planctx *c)
{
        const char *dir = nm_conf_dirs[0];
        const char *ours = "idlecfg.conf";
        char **names = NULL;
        size_t n = 0;

        if (rootfs_list_dir(c->inv->rfs, dir, ".conf", &names, &n) < 0)
                return;
        for (size_t i = 0; i < n; i++) {
                _cleanup_free_ char *path = NULL, *text = NULL;
                int r;

                if (strcmp(names[i], ours) <= 0)
                        continue;
                path = xasprintf("%s/%s", dir, names[i]);
                r = rootfs_read_file(c->inv->rfs, path, 0, NM_CONF_MAX, &text, NULL, NULL);
                if (r < 0 && r != -ENOENT) {
                        _cleanup_free_ char *shown = rootfs_display(c->inv->rfs, path);
                        _cleanup_free_ char *why = rootfs_why(c->inv->rfs, path, r, NM_CONF_MAX);
                        /* unlike systemd's tools, NetworkManager does not skip a link to
                         * nothing in conf.d: read_config() fails, "file ... not found" */
                        if (r == -ENOLINK)
                                rootfs_warn(c->inv->rfs, _("%s: %s; NetworkManager fails to load its configuration "
                                                           "over such a file (\"file not found\")"), shown, why);
                        else
                                rootfs_warn(c->inv->rfs, _("%s: %s; idlecfg cannot tell whether it sets "
                                                           "wifi.powersave after idlecfg's file, and assumes it "
                                                           "does not"), shown, why);
                }
                if (r == 0 && strstr(text, "wifi.powersave"))
                        plan_add_warning(c->plan, "%s sets wifi.powersave and is read after %s/%s: where its "
                                         "section matches, it wins over idlecfg's [wifi] power_save", path, dir, ours);
        }
        rootfs_list_free(names, n);
}

/* Drivers whose module has a power-save parameter, for targets without
 * NetworkManager. The values are the drivers' own (MODULE_PARM_DESC):
 * iwlmvm and iwlmld power_scheme "1-active, 2-balanced, 3-low power, default:
 * 2" (1 keeps the firmware out of power save; 2 is power save as mac80211
 * asks), ath9k and ath9k_htc ps_enable "Enable WLAN PowerSave" (default 0). A
 * parameter the target kernel lacks makes plan_param() a skip with the reason. */
static const struct driver_param {
        const char *driver, *module, *param, *off, *on;
} driver_params[] = {
        { "iwlwifi", "iwlmvm", "power_scheme", "1", "2" },
        { "iwlwifi", "iwlmld", "power_scheme", "1", "2" },
        { "ath9k", "ath9k", "ps_enable", "0", "1" },
        { "ath9k_htc", "ath9k_htc", "ps_enable", "0", "1" },
};

static void plan_driver_param(struct planctx *c, const struct device *d, const char *want, char *reason_take)
{
        const struct driver_param *found = NULL;

        for (size_t i = 0; i < ELEMENTSOF(driver_params); i++) {
                const struct driver_param *dp = &driver_params[i];
                if (!streq_ptr(d->driver, dp->driver))
                        continue;
                /* iwlwifi's firmware decides between iwlmvm and iwlmld: the first the kernel has */
                if (!found || (c->mc && (modctx_state(c->mc, dp->module) == MOD_BUILTIN ||
                                         modctx_state(c->mc, dp->module) == MOD_LOADABLE) &&
                               modctx_state(c->mc, found->module) != MOD_BUILTIN &&
                               modctx_state(c->mc, found->module) != MOD_LOADABLE))
                        found = dp;
        }
        if (!found) {
                _cleanup_free_ char *why = reason_take;
                plan_skip(c, d, "wifi.power_save",
                          xasprintf("skipped: no NetworkManager in the target and driver %s has no power-save "
                                    "parameter idlecfg knows; the kernel's default stays (CONFIG_CFG80211_DEFAULT_PS); "
                                    "wanted %s by %s", d->driver ? d->driver : "(none)", want, why));
                return;
        }
        plan_param(c, d, "wifi.driver_power_save", found->module, found->param,
                   streq(want, "on") ? found->on : found->off,
                   xasprintf("%s; no NetworkManager in the target: the driver's parameter", reason_take));
        free(reason_take);
}

void knob_wifi(struct planctx *c)
{
        const struct device_list *net = &c->inv->classes[CL_NET];
        const char *value = profile_value(c, "wifi", "power_save");
        const char *nm = NULL;
        bool any = false, have_nm;

        for (size_t i = 0; i < net->n && !any; i++)
                any = streq_ptr(kv_get(&net->v[i].ids, "kind"), "wlan");
        if (!any)
                return;
        if (!value) {
                plan_skip_keep(c, "wifi.power_save", "wifi", "power_save");
                return;
        }
        have_nm = has_networkmanager(c, &nm);
        if (have_nm)
                warn_later_files(c);
        for (size_t i = 0; i < net->n; i++) {
                const struct device *d = &net->v[i];
                const char *want = value;
                char *reason;
                struct hwdb_fact f;

                if (!streq_ptr(kv_get(&d->ids, "kind"), "wlan"))
                        continue;
                /* a known-bad card: its deny entry wins over the profile's "on" */
                if (streq(value, "on") && hwdb_fact(c, d->modalias, "IDLECFG_WIFI_POWER_SAVE", &f) &&
                    streq(f.value, "deny")) {
                        want = "off";
                        reason = fact_reason(&f);
                } else
                        reason = profile_reason(c, "wifi", "power_save");
                if (have_nm && !knob_nm_ifname_ok(d->name)) {
                        /* a name the kernel allows (a udev rule's, ip link's) that a
                         * section of idlecfg's conf.d file cannot match: this card only */
                        plan_skip(c, d, "wifi.power_save",
                                  xasprintf("skipped: idlecfg's NetworkManager file cannot match the interface "
                                            "name '%s' (its section names and match-device take 1 to 15 letters, "
                                            "digits, _ . and - only): the power save NetworkManager chooses "
                                            "stays; wanted %s by %s",
                                            d->name ? d->name : "", want, reason));
                        free(reason);
                } else if (have_nm) {
                        plan_service(c, d, "wifi.power_save", MECH_NM, "wifi.powersave", want,
                                     xasprintf("%s; NetworkManager (%s) sets it on every activation", reason, nm));
                        free(reason);
                } else
                        plan_driver_param(c, d, want, reason);
        }
}

static const char *const ch_power_save[] = { "on", "off", "keep", NULL };

static const struct profile_key keys[] = {
        KEY_CHOICE("power_save", ch_power_save),
};

static const struct knob_rule rules[] = {
        /* NetworkManager's numbers for the words (nm-settings(5): 2 disable, 3 enable) */
        RULE_WORDS_SERVICE("wifi.power_save", "on|off", "wifi.powersave", "on=3|off=2"),
        RULE_RANGE("wifi.driver_power_save", 0, 3, NULL,
                   "iwlmvm.power_scheme|iwlmld.power_scheme|ath9k.ps_enable|ath9k_htc.ps_enable"),
};

static const struct knob_property properties[] = {
        PROP_WORDS("IDLECFG_WIFI_POWER_SAVE", "deny",
                   "802.11 power save breaks this Wi-Fi card: it is planned off where the profile asks for on"),
};

static const char *const modules[] = { "iwlmvm", "iwlmld", "iwlwifi", "ath9k", "ath9k_htc", NULL };

/* NetworkManager's daemon (it decides the mechanism), the conf.d files the plan warns about */
static const struct knob_input inputs[] = {
        KNOB_INPUT(INPUT_EXISTS, nm_paths, NULL),
        KNOB_INPUT(INPUT_DIR, nm_conf_dirs, ".conf"),
};

const struct knob_family knob_family_wifi = {
        .name = "wifi",
        .section = "wifi",
        KNOB_LIST(keys, keys),
        KNOB_LIST(rules, rules),
        KNOB_LIST(properties, properties),
        KNOB_LIST(inputs, inputs),
        /* read for the plan's "now" values; shown last, after the other families' */
        .modules_shown = modules,
        .plan = knob_wifi,
};
