/* knobs/audio.c: snd_hda_intel power_save, never on the kernel's denylist */
#include "config.h"

#include "planner.h"

void knob_audio(struct planctx *c)
{
        const struct device_list *cards = &c->inv->classes[CL_SOUND];
        const struct device_list *pci = &c->inv->classes[CL_PCI];
        const char *save = profile_value(c, "audio", "power_save");
        const char *ctl = profile_value(c, "audio", "power_save_controller");
        const struct device *hda = NULL;

        for (size_t i = 0; i < cards->n && !hda; i++) {
                const struct device *card = &cards->v[i];
                const char *drv = kv_get(&card->ids, "controller_driver");
                const char *ctrl = kv_get(&card->ids, "controller");

                if (drv && startswith(drv, "sof-audio")) {
                        plan_skip(c, card, "audio.power_save",
                                  xstrdup("skipped: SOF audio DSP: the HDA power_save parameters have no effect "
                                            "(sof #10060); its PCI runtime PM is the pci family's"));
                        continue;
                }
                if (!streq_ptr(drv, "snd_hda_intel"))
                        continue;
                for (size_t k = 0; k < pci->n; k++)
                        if (streq_ptr(pci->v[k].name, ctrl))
                                hda = &pci->v[k];
        }
        if (!hda)
                return;
        if (!save && !ctl) {
                plan_skip_keep(c, "audio.power_save", "audio", "power_save");
                return;
        }
        {
                struct hwdb_fact f;
                if (hwdb_fact(c, hda->modalias, "IDLECFG_AUDIO_POWER_SAVE", &f) && streq(f.value, "deny")) {
                        _cleanup_free_ char *why = fact_reason(&f);
                        plan_skip(c, hda, "audio.power_save", xasprintf("skipped: %s", why));
                        return;
                }
        }
        /* the parameters are global to the module: one setting each */
        if (save)
                plan_param(c, NULL, "audio.power_save", "snd_hda_intel", "power_save", save,
                           profile_reason(c, "audio", "power_save"));
        if (ctl)
                plan_param(c, NULL, "audio.power_save_controller", "snd_hda_intel", "power_save_controller",
                           streq(ctl, "yes") ? "Y" : "N", profile_reason(c, "audio", "power_save_controller"));
}
