/* knobs/gpu.c: i915 FBC/PSR, amdgpu ABM: platform opt-ins from the hwdb, never blind;
 * GPU runtime PM, NVIDIA's runtime D3 on notebooks by hwdb entry; RC6 off or idle and
 * an NVIDIA GPU out of D3cold, as verify looks at them */
#include "config.h"

#include <strings.h>
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

/* ---- NVIDIA runtime D3 (NVIDIA's README, chapter "PCI-Express Runtime D3 (RTD3)
 * Power Management"). The proprietary driver turns fine-grained runtime D3 on by
 * itself only on Ampere and newer notebooks (NVreg_DynamicPowerManagement's
 * default, 0x03); Turing notebooks with a _PR3 power resource need 0x02, and
 * the driver leaves power/control to user space: NVIDIA's udev rules write auto
 * at the driver's bind and on at its unbind (a driverless GPU must not be
 * runtime-suspended). The README supports it on notebooks only (the DMI chassis
 * type); measured 10 W against 15 W idle on a Turing notebook (tuned#649). An
 * opt-in: an IDLECFG_NVIDIA_RTD3=allow entry for the GPU on this platform. ---- */
#define K_NV_PARAM "gpu.nvidia_rtd3"
#define K_NV_BIND "gpu.nvidia_runtime_pm"

/* an NVIDIA VGA or 3D controller (class 0300, 0302) the proprietary driver drives */
static bool nvidia_gpu(const struct device *d)
{
        const char *cls = strempty(kv_get(&d->ids, "class"));

        return strcasecmp(strempty(kv_get(&d->ids, "vendor")), "10de") == 0 &&
               (startswith(cls, "0300") || startswith(cls, "0302")) && streq_ptr(d->driver, "nvidia");
}

/* SMBIOS chassis types of notebooks: Portable 8, Laptop 9, Notebook 10, Sub
 * Notebook 14, Convertible 31, Detachable 32 */
static bool notebook(const char *type)
{
        static const char *const types[] = { "8", "9", "10", "14", "31", "32" };

        for (size_t i = 0; type && i < ELEMENTSOF(types); i++)
                if (streq(type, types[i]))
                        return true;
        return false;
}

/* the entry that keeps runtime D3 off the GPU: a deny for the GPU on this
 * platform, for the GPU, or for the platform; false and a skip planned when
 * one denies or cannot be decided */
static bool nvidia_denied(struct planctx *c, const struct device *d, const char *mkey)
{
        const char *keys[] = { mkey, d->modalias, kv_get(&c->inv->platform, "modalias") };
        struct hwdb_fact f;

        for (size_t i = 0; i < ELEMENTSOF(keys); i++) {
                _cleanup_free_ char *undecided = NULL;
                if (hwdb_fact_undecided(c, keys[i], "IDLECFG_NVIDIA_RTD3", &f, &undecided) && streq(f.value, "deny")) {
                        _cleanup_free_ char *why = fact_reason(&f);
                        plan_skip(c, d, K_NV_BIND, xasprintf("skipped: %s: the driver's default stays", why));
                        return true;
                }
                if (undecided) {
                        plan_skip(c, d, K_NV_BIND, xasprintf("skipped: %s: the driver's default stays", undecided));
                        return true;
                }
        }
        return false;
}

/* [gpu] runtime_pm on an NVIDIA GPU: with WANT auto, a notebook and an allow
 * entry keyed by the GPU on this platform (idlecfg-on:DMI|PCI), the driver's
 * option (once for all GPUs: *PARAM) and the bind rule */
static void nvidia_rtd3(struct planctx *c, const struct device *d, const char *want, struct setting **param)
{
        const char *chassis = kv_get(&c->inv->platform, "chassis_type");
        _cleanup_free_ char *mkey = machine_key(c, d->modalias), *why = NULL;
        struct hwdb_fact f;
        struct setting *s;

        if (streq(want, "on")) {
                _cleanup_free_ char *p = profile_reason(c, "gpu", "runtime_pm");
                plan_skip(c, d, K_NV_BIND, xasprintf("skipped: %s keeps GPUs awake: no runtime D3 for this NVIDIA GPU", p));
                return;
        }
        if (!notebook(chassis)) {
                plan_skip(c, d, K_NV_BIND,
                          xasprintf("skipped: not a notebook (DMI chassis type %s): NVIDIA supports runtime D3 on "
                                    "notebooks only, and idlecfg never plans it elsewhere, hwdb entry or not",
                                    chassis ? chassis : "unknown"));
                return;
        }
        if (nvidia_denied(c, d, mkey))
                return;
        if (!hwdb_fact(c, mkey, "IDLECFG_NVIDIA_RTD3", &f) || !streq(f.value, "allow")) {
                plan_skip(c, d, K_NV_BIND,
                          xstrdup("skipped: no hwdb entry allows runtime D3 for this GPU on this platform "
                                  "(IDLECFG_NVIDIA_RTD3=allow, keyed idlecfg-on:DMI|PCI): the driver's default stays "
                                  "(it turns runtime D3 on by itself only on Ampere and newer notebooks)"));
                return;
        }
        why = fact_reason(&f);
        if (!*param)
                *param = plan_param(c, NULL, K_NV_PARAM, "nvidia", "NVreg_DynamicPowerManagement", "0x02",
                                    xasprintf("%s; fine-grained runtime D3 (0x02, NVIDIA's README): the driver turns "
                                              "it on by itself only on Ampere and newer notebooks", why));
        if (!(*param)->value) {
                plan_skip(c, d, K_NV_BIND, xasprintf("%s: no runtime D3 without it", (*param)->reason));
                return;
        }
        s = plan_device(c, d, K_NV_BIND, "power/control", "auto",
                        xasprintf("%s; at the nvidia driver's bind, as NVIDIA's udev rule (and on again at its "
                                  "unbind): the driver leaves runtime PM to user space", why));
        kv_add(&s->match, "DRIVER", "nvidia");
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
        struct setting *nv_param = NULL;
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
                if (nvidia_gpu(d)) {
                        nvidia_rtd3(c, d, want, &nv_param);
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
        /* nvidia's NVreg_DynamicPowerManagement: 0x02 fine-grained runtime D3 (NVIDIA's README) */
        RULE_WORDS(K_NV_PARAM, "0x02", NULL, "nvidia.NVreg_DynamicPowerManagement"),
        RULE_WORDS_BIND(K_NV_BIND, "auto", "power/control", "on"),
};

static const struct knob_property properties[] = {
        PROP_WORDS("IDLECFG_I915_FBC", "deny|allow|-1|0|1", "i915 frame buffer compression on this platform"),
        PROP_WORDS("IDLECFG_I915_PSR", "deny|allow|-1|0|1|2", "i915 panel self refresh on this platform"),
        PROP_WORDS("IDLECFG_AMDGPU_ABM", "deny|allow|-1|0|1|2|3|4", "amdgpu adaptive backlight level on this platform"),
        PROP_WORDS("IDLECFG_NVIDIA_RTD3", "deny|allow",
                   "NVIDIA runtime D3 (NVreg_DynamicPowerManagement=0x02) for this GPU on this notebook"),
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

/* the GPU's other PCI functions (audio 0403, USB xHCI, UCSI: function 1 to 3,
 * NVIDIA's README) share its power: the first one that is awake, in words */
static char *nvidia_awake_function(const char *devpath)
{
        const char *base = strrchr(devpath, '/');
        const char *dot = base ? strrchr(base, '.') : NULL;

        for (int fn = 1; dot && fn <= 7; fn++) {
                _cleanup_free_ char *dir = xasprintf("/sys%.*s.%d", (int) (dot - devpath), devpath, fn);
                _cleanup_free_ char *status = NULL, *control = NULL, *cls = NULL;

                if (read_attr(dir, "power/runtime_status", &status) < 0 || streq(status, "suspended"))
                        continue;
                (void) read_attr(dir, "power/control", &control);
                (void) read_attr(dir, "class", &cls);
                return xasprintf(_("its function %.*s.%d (class %s) is %s with power/control = %s: it shares the "
                                   "GPU's power, so the GPU stays up"), (int) (dot - base - 1), base + 1, fn,
                                 cls ? cls : "?", status, control ? control : "?");
        }
        return NULL;
}

/* an NVIDIA GPU with runtime PM allowed that is not in D3cold, and why:
 * power_state (PCI, drivers/pci/pci-sysfs.c power_state_show()) and the ACPI
 * companion's real_power_state (drivers/acpi/device_sysfs.c) say D3cold once
 * the platform cut its power; runtime_status suspended alone is D3hot. With
 * power/control = on the generic blocker says so. */
static char *nvidia_d3cold_blocker(const struct device *d, char **ret_devpath)
{
        _cleanup_free_ char *dir = NULL, *status = NULL, *state = NULL, *real = NULL, *fn = NULL;
        const char *control = kv_get(&d->knobs, "power/control");

        if (!nvidia_gpu(d) || !d->devpath || !streq_ptr(control, "auto"))
                return NULL;
        dir = xasprintf("/sys%s", d->devpath);
        (void) read_attr(dir, "power/runtime_status", &status);
        (void) read_attr(dir, "power_state", &state);
        (void) read_attr(dir, "firmware_node/real_power_state", &real);
        if (streq_ptr(state, "D3cold") || streq_ptr(real, "D3cold"))
                return NULL;
        if (streq_ptr(status, "suspended"))
                return xasprintf(_("NVIDIA GPU runtime-suspended but not in D3cold (power_state %s, "
                                   "firmware_node/real_power_state %s): the platform has no power resource to cut "
                                   "(no _PR3), or d3cold_allowed is 0"), state ? state : "unknown",
                                 real ? real : "absent");
        if ((fn = nvidia_awake_function(d->devpath)))
                return xasprintf(_("NVIDIA GPU not in D3cold (runtime_status %s): %s"), status ? status : "unknown", fn);
        return xasprintf(_("NVIDIA GPU not in D3cold (runtime_status %s, power_state %s): the driver holds it "
                           "(in use, NVreg_DynamicPowerManagement not 0x02, or video memory in use; "
                           "/proc/driver/nvidia/gpus/%s/power says which)"), status ? status : "unknown",
                         state ? state : "unknown", strempty(d->name));
}

static const struct knob_blocker blockers[] = {
        BLOCKER_CHECK("drm", NULL, rc6_blocker),
        BLOCKER_CHECK("pci", K_NV_BIND, nvidia_d3cold_blocker),
};

/* the GPUs the plan lets suspend: verify says whether each reached D3cold */
static const char *const runtime_followed[] = { K_NV_BIND, "gpu.runtime_pm", NULL };

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
        .runtime_followed = runtime_followed,
        .plan = knob_gpu,
};
