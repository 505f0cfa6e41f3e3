/* knobs/gpu.c: i915 FBC/PSR, amdgpu ABM: platform opt-ins from the hwdb, never blind */
#include "config.h"

#include "planner.h"

static bool has_driver(struct planctx *c, const char *driver)
{
        const struct device_list *l = &c->inv->classes[CL_PCI];

        for (size_t i = 0; i < l->n; i++)
                if (streq_ptr(l->v[i].driver, driver) ||
                    (l->v[i].n_modules && streq(l->v[i].modules[0].name, driver)))
                        return true;
        return false;
}

/* one display feature: "platform" takes the platform's hwdb entry, "off" turns it off */
static void feature(struct planctx *c, const char *key, const char *knob, const char *module,
                    const char *param, const char *property, const char *on_value)
{
        const char *want = profile_value(c, "gpu", key);
        const char *dmi = kv_get(&c->inv->platform, "modalias");
        struct hwdb_fact f;

        if (!want) {
                plan_skip_keep(c, knob, "gpu", key);
                return;
        }
        if (streq(want, "off")) {
                plan_param(c, NULL, knob, module, param, "0", profile_reason(c, "gpu", key));
                return;
        }
        if (!hwdb_fact(c, dmi, property, &f)) {
                _cleanup_free_ char *why = profile_reason(c, "gpu", key);
                plan_skip(c, NULL, knob, xasprintf("skipped: %s, and no hwdb entry opts this platform in: "
                                                     "the driver's default stays", why));
                return;
        }
        if (streq(f.value, "deny"))
                plan_param(c, NULL, knob, module, param, "0", fact_reason(&f));
        else if (streq(f.value, "allow"))
                plan_param(c, NULL, knob, module, param, on_value, fact_reason(&f));
        else
                plan_param(c, NULL, knob, module, param, f.value, fact_reason(&f));
}

void knob_gpu(struct planctx *c)
{
        if (has_driver(c, "i915")) {
                feature(c, "i915_fbc", "gpu.i915_fbc", "i915", "enable_fbc", "IDLECFG_I915_FBC", "1");
                feature(c, "i915_psr", "gpu.i915_psr", "i915", "enable_psr", "IDLECFG_I915_PSR", "1");
                /* enable_rc6 was removed in 4.16: RC6 is always on; say so once */
                if (!c->mc || !modctx_has_param(c->mc, "i915", "enable_rc6"))
                        plan_skip(c, NULL, "gpu.i915_rc6",
                                  xstrdup("skipped: RC6 is always on since Linux 4.16 (i915.enable_rc6 removed); "
                                            "verify reads power/rc6_residency_ms"));
                else
                        plan_skip(c, NULL, "gpu.i915_rc6",
                                  xstrdup("skipped: i915.enable_rc6 exists in this old kernel; its default is kept"));
        }
        if (has_driver(c, "amdgpu"))
                feature(c, "amdgpu_abm", "gpu.amdgpu_abm", "amdgpu", "abmlevel", "IDLECFG_AMDGPU_ABM", "1");
}
