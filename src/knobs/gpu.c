/* knobs/gpu.c: i915 FBC/PSR, amdgpu ABM: platform opt-ins from the hwdb, never blind;
 * GPU runtime PM; RC6 off or idle, as verify looks at it */
#include "config.h"

#include <time.h>

#include "knobs/knob.h"

/* the first PCI device that DRIVER drives, or would in the target kernel:
 * bound to it, or a display controller (class 03, or no class known) whose modalias resolves to
 * it first (i915 and amdgpu drive only those; the modules of other devices,
 * and with them libkmod, are not needed) */
static const struct device *has_driver(struct planctx *c, const char *driver)
{
        const struct device_list *l = &c->inv->classes[CL_PCI];

        for (size_t i = 0; i < l->n; i++) {
                const char *cls = kv_get(&l->v[i].ids, "class");
                const struct module_ref *m;
                size_t n;

                if (streq_ptr(l->v[i].driver, driver))
                        return &l->v[i];
                if (cls && !startswith(cls, "03"))
                        continue;
                m = device_modules(c->inv, &l->v[i], &n);
                if (n && streq(m[0].name, driver))
                        return &l->v[i];
        }
        return NULL;
}

/* i915's parameters declared with module_param_named_unsafe() (i915_params.c in
 * 6.1, display/intel_display_params.c from 6.12 on): setting one taints the
 * kernel (kernel/params.c param_check_unsafe(): TAINT_USER, 'U') */
static const char *const i915_unsafe[] = { "enable_fbc", "enable_psr", "enable_dc" };

/* a planned value of an unsafe parameter says that it taints the kernel */
static void say_taint(struct setting *s, const char *module, const char *param)
{
        char *r;
        bool unsafe = false;

        for (size_t i = 0; i < ELEMENTSOF(i915_unsafe); i++)
                unsafe = unsafe || (streq(module, "i915") && streq(param, i915_unsafe[i]));
        if (!s || !s->value || !unsafe)
                return;
        r = xasprintf("%s; i915.%s is an unsafe parameter: setting it taints the kernel (TAINT_USER, 'U' in "
                      "/proc/sys/kernel/tainted; kernel/params.c param_check_unsafe())", strempty(s->reason), param);
        free(s->reason);
        s->reason = r;
}

/* one display feature: "platform" takes the platform's hwdb entry, "off" turns it off */
static void feature(struct planctx *c, const struct device *gpu, const char *key, const char *knob,
                    const char *module, const char *param, const char *property, const char *on_value,
                    const char *baseline)
{
        const char *want = profile_value(c, "gpu", key);
        const char *dmi = kv_get(&c->inv->platform, "modalias");
        struct hwdb_fact f;
        _cleanup_free_ char *undecided = NULL;

        if (!want) {
                plan_skip_keep(c, knob, "gpu", key);
                return;
        }
        if (streq(want, "off")) {
                say_taint(plan_param(c, NULL, knob, module, param, "0", profile_reason(c, "gpu", key)), module, param);
                return;
        }
        /* the machine (dmi:) first, then the GPU itself (its PCI modalias: one
         * entry per generation, with a _KERNEL range where the driver's default moved) */
        if (!hwdb_fact_undecided(c, dmi, property, &f, &undecided) &&
            !(!undecided && gpu && hwdb_fact_undecided(c, gpu->modalias, property, &f, &undecided))) {
                if (undecided) {
                        plan_skip(c, NULL, knob, xasprintf("skipped: %s: the driver's default stays (%s)", undecided,
                                                           baseline));
                        return;
                }
                _cleanup_free_ char *why = profile_reason(c, "gpu", key);
                plan_skip(c, NULL, knob, xasprintf("skipped: %s, and no hwdb entry for this platform or GPU: "
                                                     "the driver's default stays (%s)", why, baseline));
                return;
        }
        say_taint(plan_param(c, NULL, knob, module, param,
                             streq(f.value, "deny") ? "0" : streq(f.value, "allow") ? on_value : f.value,
                             fact_reason(&f)), module, param);
}

/* [gpu] runtime_pm: power/control of GPUs whose driver runs runtime PM itself
 * (amdgpu, radeon, nouveau: runpm). Those drivers allow runtime PM at probe only
 * where the GPU has a runtime D3 (BOCO/BACO, Optimus _PR3), so power/control =
 * auto is their answer; a GPU they left on has none and stays untouched: writing
 * auto there gains nothing (amdgpu refuses with -EBUSY) and risks a hung wakeup. */
static void gpu_runtime_pm(struct planctx *c)
{
        static const char *const runpm_drivers[] = { "amdgpu", "radeon", "nouveau" };
        const struct device_list *l = &c->inv->classes[CL_PCI];
        const char *want = profile_value(c, "gpu", "runtime_pm");
        bool any = false;

        for (size_t i = 0; i < l->n; i++) {
                const struct device *d = &l->v[i];
                const char *cls = kv_get(&d->ids, "class");
                const char *cur = kv_get(&d->knobs, "power/control");
                struct hwdb_fact f;
                bool runpm = false;

                if (!cls || !startswith(cls, "03") || !cur)
                        continue;
                if (!any && !want)
                        plan_skip_keep(c, "gpu.runtime_pm", "gpu", "runtime_pm");
                any = true;
                if (!want)
                        return;
                /* an hwdb entry of the device is the pci family's: [pci] runtime_pm decides
                 * (and says so when its kernel range cannot be decided) */
                {
                        _cleanup_free_ char *undecided = NULL;
                        if (hwdb_fact_undecided(c, d->modalias, "IDLECFG_PCI_RUNTIME_PM", &f, &undecided) || undecided)
                                continue;
                }
                for (size_t k = 0; k < ELEMENTSOF(runpm_drivers); k++)
                        runpm = runpm || streq_ptr(d->driver, runpm_drivers[k]);
                if (!runpm) {
                        plan_skip(c, d, "gpu.runtime_pm",
                                  xasprintf("skipped: driver %s: its runtime PM is the driver's own (i915 and xe "
                                            "enable it themselves; nvidia needs its DynamicPowerManagement option)",
                                            d->driver ? d->driver : "none"));
                        continue;
                }
                if (streq(want, "on")) {
                        plan_device(c, d, "gpu.runtime_pm", "power/control", "on",
                                    profile_reason(c, "gpu", "runtime_pm"));
                        continue;
                }
                if (!streq(cur, "auto")) {
                        plan_skip(c, d, "gpu.runtime_pm",
                                  xasprintf("skipped: %s left runtime PM off (power/control = %s): no runtime D3 on "
                                            "this GPU (no BOCO/BACO or _PR3), or its runpm parameter is 0",
                                            d->driver, cur));
                        continue;
                }
                {
                        _cleanup_free_ char *why = profile_reason(c, "gpu", "runtime_pm");
                        plan_device(c, d, "gpu.runtime_pm", "power/control", want,
                                    xasprintf("%s; %s allowed runtime PM at probe (runtime D3 present): planned so "
                                              "that it stays so", why, d->driver));
                }
        }
}

/* the level [gpu] amdgpu_abm asks for: "off" 0, the platform's entry (deny 0,
 * allow 1, a level itself), NULL (with a skip planned) for none or -1 */
static const char *abm_level(struct planctx *c, const char *want, char **ret_why)
{
        static const char *const baseline = "amdgpu leaves ABM to the compositor or its abmlevel default";
        struct hwdb_fact f;
        _cleanup_free_ char *undecided = NULL;

        if (streq(want, "off")) {
                *ret_why = profile_reason(c, "gpu", "amdgpu_abm");
                return "0";
        }
        if (!hwdb_fact_undecided(c, kv_get(&c->inv->platform, "modalias"), "IDLECFG_AMDGPU_ABM", &f, &undecided)) {
                _cleanup_free_ char *why = undecided ? NULL : profile_reason(c, "gpu", "amdgpu_abm");
                plan_skip(c, NULL, "gpu.amdgpu_abm",
                          undecided ? xasprintf("skipped: %s: the driver's default stays (%s)", undecided, baseline)
                                    : xasprintf("skipped: %s, and no hwdb entry for this platform or GPU: the "
                                                "driver's default stays (%s)", why, baseline));
                return NULL;
        }
        if (streq(f.value, "-1")) {
                _cleanup_free_ char *why = fact_reason(&f);
                plan_skip(c, NULL, "gpu.amdgpu_abm", xasprintf("skipped: %s: the driver decides (%s)", why, baseline));
                return NULL;
        }
        *ret_why = fact_reason(&f);
        return streq(f.value, "deny") ? "0" : streq(f.value, "allow") ? "1" : f.value;
}

/* amdgpu's adaptive backlight, only through each panel's amdgpu/panel_power_savings
 * (Linux 6.9 on), never amdgpu.abmlevel: a level given there takes that file
 * away and the ABM property compositors use (amdgpu_dm_should_create_sysfs(),
 * amdgpu_dm_setup_backlight_device(): both only while abmlevel is -1), locking
 * power-profiles-daemon and the desktop out. The rule writes the level when
 * the connector appears; power-profiles-daemon may change it later. */
static void abm(struct planctx *c, const struct device *gpu)
{
        const char *want = profile_value(c, "gpu", "amdgpu_abm"), *level;
        const struct device_list *cards = &c->inv->classes[CL_DRM];
        _cleanup_free_ char *why = NULL;
        bool any = false;

        if (!want) {
                plan_skip_keep(c, "gpu.amdgpu_abm", "gpu", "amdgpu_abm");
                return;
        }
        level = abm_level(c, want, &why);
        if (!level)
                return;
        for (size_t i = 0; i < cards->n; i++)
                for (size_t k = 0; k < cards->v[i].n_children; k++) {
                        const struct device *conn = &cards->v[i].children[k];
                        if (!streq_ptr(kv_get(&cards->v[i].ids, "controller_driver"), "amdgpu") ||
                            !kv_find(&conn->knobs, "amdgpu/panel_power_savings"))
                                continue;
                        plan_device(c, conn, "gpu.amdgpu_abm", "amdgpu/panel_power_savings", level,
                                    xasprintf("%s; through the panel's amdgpu/panel_power_savings, never "
                                              "amdgpu.abmlevel (which takes that control away from compositors "
                                              "and power-profiles-daemon)", why));
                        any = true;
                }
        if (!any)
                plan_skip(c, NULL, "gpu.amdgpu_abm",
                          xasprintf("skipped: %s wants ABM level %s, but no panel of %s has "
                                    "amdgpu/panel_power_savings (Linux 6.9 and later, internal LCD panels): "
                                    "amdgpu.abmlevel is never planned, it takes the control away from "
                                    "compositors and power-profiles-daemon", why, level, strempty(gpu->name)));
}

void knob_gpu(struct planctx *c)
{
        const struct device *g;

        if ((g = has_driver(c, "i915"))) {
                /* intel_fbc.c: FBC on by default on Broadwell and display version 9 and later;
                 * intel_psr.c: PSR on wherever the VBT and the panel declare it */
                feature(c, g, "i915_fbc", "gpu.i915_fbc", "i915", "enable_fbc", "IDLECFG_I915_FBC", "1",
                        "i915 turns FBC on by itself on Broadwell and gen9 and later");
                feature(c, g, "i915_psr", "gpu.i915_psr", "i915", "enable_psr", "IDLECFG_I915_PSR", "1",
                        "i915 turns PSR on by itself where the VBT and the panel support it");
                /* enable_rc6 was removed in 4.16: RC6 is always on; say so once */
                if (!c->mc || !modctx_has_param(c->mc, "i915", "enable_rc6"))
                        plan_skip(c, NULL, "gpu.i915_rc6",
                                  xstrdup("skipped: RC6 is always on since Linux 4.16 (i915.enable_rc6 removed); "
                                            "verify reads power/rc6_residency_ms"));
                else
                        plan_skip(c, NULL, "gpu.i915_rc6",
                                  xstrdup("skipped: i915.enable_rc6 exists in this old kernel; its default is kept"));
        }
        if ((g = has_driver(c, "amdgpu")))
                abm(c, g);
        gpu_runtime_pm(c);
}

static const char *const ch_display[] = { "platform", "off", "keep", NULL };
static const char *const ch_runtime_pm[] = { "auto", "on", "keep", NULL };

static const struct profile_key keys[] = {
        KEY_CHOICE("i915_fbc", ch_display),
        KEY_CHOICE("i915_psr", ch_display),
        KEY_CHOICE("amdgpu_abm", ch_display),
        KEY_CHOICE("runtime_pm", ch_runtime_pm),
};

static const struct knob_rule rules[] = {
        RULE_WORDS("gpu.i915_fbc", "-1|0|1", NULL, "i915.enable_fbc"),
        RULE_WORDS("gpu.i915_psr", "-1|0|1|2", NULL, "i915.enable_psr"),
        /* panel_power_savings_store(): 0 (off) to 4 */
        RULE_RANGE("gpu.amdgpu_abm", 0, 4, "amdgpu/panel_power_savings", NULL),
        RULE_WORDS("gpu.runtime_pm", "auto|on", "power/control", NULL),
};

static const struct knob_property properties[] = {
        PROP_WORDS("IDLECFG_I915_FBC", "deny|allow|-1|0|1", "i915 frame buffer compression on this platform"),
        PROP_WORDS("IDLECFG_I915_PSR", "deny|allow|-1|0|1|2", "i915 panel self refresh on this platform"),
        PROP_WORDS("IDLECFG_AMDGPU_ABM", "deny|allow|-1|0|1|2|3|4", "amdgpu adaptive backlight level on this platform"),
};

static const struct knob_attr attrs[] = {
        { "drm", "power/rc6_enable" }, { "drm", "power/rc6_residency_ms" }, { "drm", "power/rc6p_residency_ms" },
        { "drm", "power/rc6pp_residency_ms" }, { "drm", "power/media_rc6_residency_ms" },
        { "drm", "gt/gt0/rc6_enable" }, { "drm", "gt/gt0/rc6_residency_ms" },
        { "drm", "device/power_dpm_state" }, { "drm", "device/power_dpm_force_performance_level" },
        { "connector", "amdgpu/panel_power_savings" },
};

static const char *const modules[] = { "i915", "xe", "amdgpu", "radeon", "nouveau", NULL };

static const struct knob_runtime_pm runtime_pm[] = {
        { "drm", "gpu.runtime_pm" },
};

/* RC6 off, or its residency counter standing still over 0.2 s */
static char *rc6_blocker(const struct device *d, char **ret_devpath)
{
        static const char *const files[] = { "power/rc6_residency_ms", "gt/gt0/rc6_residency_ms" };
        _cleanup_free_ char *dir = NULL;
        const char *v;

        if (((v = kv_get(&d->knobs, "power/rc6_enable")) || (v = kv_get(&d->knobs, "gt/gt0/rc6_enable"))) &&
            streq(v, "0"))
                return xstrdup(_("GPU RC6 is disabled (rc6_enable = 0)"));
        if (!d->devpath)
                return NULL;
        dir = xasprintf("/sys%s", d->devpath);
        for (size_t i = 0; i < ELEMENTSOF(files); i++) {
                _cleanup_free_ char *a = NULL, *z = NULL;
                if (read_attr(dir, files[i], &a) < 0)
                        continue;
                nanosleep(&(struct timespec) { .tv_nsec = 200 * 1000 * 1000 }, NULL);
                if (read_attr(dir, files[i], &z) == 0 && strtoull(z, NULL, 10) <= strtoull(a, NULL, 10))
                        return xasprintf(_("GPU RC6 residency did not grow in 0.2 s (%s stays %llu): the GPU is "
                                           "busy or cannot enter RC6"), files[i], strtoull(z, NULL, 10));
                break;
        }
        return NULL;
}

static const struct knob_blocker blockers[] = {
        BLOCKER_CHECK("drm", NULL, rc6_blocker),
};

const struct knob_family knob_family_gpu = {
        .name = "gpu",
        .section = "gpu",
        KNOB_LIST(keys, keys),
        KNOB_LIST(rules, rules),
        KNOB_LIST(properties, properties),
        KNOB_LIST(attrs, attrs),
        .modules = modules,
        KNOB_LIST(runtime_pm, runtime_pm),
        KNOB_LIST(blockers, blockers),
        .plan = knob_gpu,
};
