/* knobs/audio.c: snd_hda_intel power_save, never on the kernel's denylist */
#include "config.h"

#include "knobs/knob.h"

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
                plan_skip_keep(c, "audio.power_save_controller", "audio", "power_save_controller");
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
        else
                plan_skip_keep(c, "audio.power_save", "audio", "power_save");
        if (ctl)
                plan_param(c, NULL, "audio.power_save_controller", "snd_hda_intel", "power_save_controller",
                           streq(ctl, "yes") ? "Y" : "N", profile_reason(c, "audio", "power_save_controller"));
        else
                plan_skip_keep(c, "audio.power_save_controller", "audio", "power_save_controller");
}

static const char *const ch_yes_no_keep[] = { "yes", "no", "keep", NULL };

static const struct profile_key keys[] = {
        KEY_NUMBER_SOURCE("power_save", 0, 3600),
        KEY_CHOICE_SOURCE("power_save_controller", ch_yes_no_keep),
};

static const struct knob_rule rules[] = {
        RULE_RANGE("audio.power_save", 0, 3600, NULL, "snd_hda_intel.power_save|snd_ac97_codec.power_save"),
        RULE_WORDS("audio.power_save_controller", "Y|N", NULL, "snd_hda_intel.power_save_controller"),
};

static const struct knob_property properties[] = {
        PROP_WORDS("IDLECFG_AUDIO_POWER_SAVE", "deny", "the kernel forces HDA power saving off for this board"),
};

static const struct knob_attr attrs[] = {
        { "hda-codec", "power/control" }, { "hda-codec", "power/runtime_status" },
};

static const char *const modules[] = { "snd_hda_intel", "snd_ac97_codec", NULL };

/* the codec powers down power_save seconds after the last sound */
static const struct knob_settle settle[] = {
        { "audio.power_save", N_("; the audio codec powers down after %llu s") },
};

const struct knob_family knob_family_audio = {
        .name = "audio",
        .section = "audio",
        KNOB_LIST(keys, keys),
        KNOB_LIST(rules, rules),
        KNOB_LIST(properties, properties),
        KNOB_LIST(attrs, attrs),
        .modules = modules,
        KNOB_LIST(settle, settle),
        .plan = knob_audio,
};
