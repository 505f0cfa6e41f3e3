/* knobs/knob.h: one knob family described in one place, and the helpers the families share */
#pragma once

#include "db/hwdb.h"
#include "model/inventory.h"
#include "root/modules.h"
#include "model/plan.h"
#include "db/profile.h"

struct planctx {
        const struct inventory *inv;
        const struct hwdb *hwdb;
        const struct profile *profile;
        struct modctx *mc;              /* NULL: the target kernel's modules are unknown */
        struct plan *plan;
        const char *cmdline;            /* the running kernel's command line, NULL for a target root */
};

/* One hwdb answer with the reason and kernel range of its entry. */
struct hwdb_fact {
        const char *value;
        const char *file;
        unsigned line;
        const char *reason;             /* P_REASON, NULL if the entry has none */
};

/* ---- the whitelist of every knob ----
 * Each knob family declares the rules of its knobs (its .rules); knob_rules()
 * lists them as one table for the planner and the emitters, and emit.c
 * checks every value against it (knob_value_ok(), emit.h): a value it
 * refuses is an error, never text in a file. */

enum knob_kind {
        KNOB_WORDS,             /* one of the words of "words" */
        KNOB_INT,               /* a decimal integer from min to max, written the kernel's way */
        KNOB_RESUME,            /* resume=: UUID=<hex digits and dashes> or /dev/<letters, digits, / _ -> */
        KNOB_PORTMASK,          /* DDDD:BB:DD.F=0xHEX[,...]: per-controller AHCI port masks (mask_port_map's format) */
        KNOB_NVME_QUIRKS,       /* VVVV:DDDD:no_apst|no_deepest_ps[-...]: nvme.quirks (quirks_param_set()'s format) */
};

struct knob_rule {
        const char *knob;       /* "pci.runtime_pm" */
        enum knob_kind kind;
        const char *words;      /* KNOB_WORDS: "auto|on" */
        long min, max;          /* KNOB_INT */
        /* where it may go, "a|b" lists; NULL: nowhere. attrs: sysfs attributes a udev rule
         * may set; params: "module.param", or a bare "param" for the command line only */
        const char *attrs;
        const char *params;
        /* the sysctl keys ("kernel.nmi_watchdog") a sysctl.d line may set, "a|b"; NULL: none */
        const char *sysctls;
        /* how a service's file spells the words (NetworkManager's numbers),
         * "word=value|..."; NULL: as the plan does */
        const char *service_words;
        /* the udev actions whose rule writes it, "add|bind": NULL is "add" (the
         * kernel resets the attribute only when it adds the device again) */
        const char *udev_actions;
        /* the value a second rule writes at ACTION=="unbind" (without the
         * DRIVER match: the driver is gone by then); NULL: no such rule */
        const char *udev_unbind;
};

/* the rule of KNOB, NULL for an unknown knob */
const struct knob_rule *knob_rule(const char *knob);
/* every rule, in table order (docs and tests) */
const struct knob_rule *knob_rules(size_t *ret_n);

/* the key prefixes hwdb_fact() may be asked for; the hwdb is loaded with only these */
extern const char *const planner_hwdb_keys[];

/* Look up PROPERTY for KEY (a modalias or one of our own keys). False when no
 * entry sets it, or when its P_KERNEL or P_BIOS_DATE range excludes the target. */
bool hwdb_fact(struct planctx *c, const char *key, const char *property, struct hwdb_fact *ret);
/* The same; when an entry's P_KERNEL range cannot be decided (a release such
 * as 6.1.0-18-amd64 whose upstream sublevel the root does not say, and a range
 * such as >=6.1.192 that needs it), false, and *ret_undecided, if still NULL,
 * is set to why: the caller skips the device with it. hwdb_fact() turns it
 * into a plan warning instead. */
bool hwdb_fact_undecided(struct planctx *c, const char *key, const char *property, struct hwdb_fact *ret,
                         char **ret_undecided);
/* "idlecfg-on:DMI-MODALIAS|KEY": the key of a device on this machine (hwdb keys
 * that need both; the prefix keeps the globs of plain dmi: and pci: entries off
 * it); NULL when the machine has no DMI modalias or KEY is NULL */
char *machine_key(struct planctx *c, const char *key);
/* the PCI function a device (a SCSI host, an NVMe controller) sits on, by devpath */
const struct device *pci_parent(struct planctx *c, const struct device *d);
/* "hwdb FILE:LINE (REASON)" */
char *fact_reason(const struct hwdb_fact *f);

/* the profile's value of [section] key; NULL when the profile keeps the default */
const char *profile_value(struct planctx *c, const char *section, const char *key);
/* "profile NAME [section] key (FILE:LINE)" */
char *profile_reason(struct planctx *c, const char *section, const char *key);

/* Add a setting for device D (NULL: global). value NULL makes it a skip. */
struct setting *plan_device(struct planctx *c, const struct device *d, const char *knob,
                            const char *attr, const char *value, char *reason_take);
void plan_skip(struct planctx *c, const struct device *d, const char *knob, char *reason_take);
/* a global skip: the profile keeps the kernel default for [section] key */
void plan_skip_keep(struct planctx *c, const char *knob, const char *section, const char *key);
/* A module parameter: mechanism chosen from the target kernel (modprobe.d for a
 * loadable module, command line for a built-in one); a skip when the
 * parameter does not exist there or the kernel cannot be checked. */
struct setting *plan_param(struct planctx *c, const struct device *d, const char *knob, const char *module,
                           const char *param, const char *value, char *reason_take);

/* A global setting with its mechanism fixed by the caller (the command line,
 * tmpfiles.d): MODULE may be NULL for a bare kernel parameter. */
struct setting *plan_global(struct planctx *c, const char *knob, const char *module, const char *param,
                            const char *value, const char *current, enum mechanism mech, char *reason_take);

/* Can a NetworkManager section name and match-device value hold the interface
 * name NAME literally? The kernel allows more (dev_valid_name: at most 15
 * bytes, no '/', ':' or white space); what has a glob, ',', ';', '=', a quote
 * or a backslash cannot be matched there: its setting is a skip (its family
 * says why), and emit refuses it (emit_check_value()). */
bool knob_nm_ifname_ok(const char *name);

/* A setting of device D that a service applies (MECH_NM, MECH_LINK): PARAM is
 * its name there ("wifi.powersave", "WakeOnLan") */
struct setting *plan_service(struct planctx *c, const struct device *d, const char *knob, enum mechanism mech,
                             const char *param, const char *value, char *reason_take);

/* udev match keys that identify device D */
void match_device(const struct device *d, struct kvlist *match);

/* does any interface of USB device D have class CLS (two hex digits)? */
bool usb_has_class(const struct device *d, const char *cls);
/* is USB device D a Bluetooth adapter (an interface e0/01/01, the USB
 * Bluetooth programming interface btusb binds)? */
bool usb_is_bluetooth(const struct device *d);
/* the key systemd 252's hwdb builtin uses for USB device D
 * ("usb:vVVVVpPPPP:PRODUCT", upper-case hex): a device's key, where only
 * its interfaces have a modalias */
char *usb_hwdb_key(const struct device *d);
/* "0x" + id, as the sysfs attribute reads */
char *hex_attr(const char *id);
/* compare kernel releases like "6.1.0-18-amd64": <0, 0, >0 */
int kernel_compare(const char *a, const char *b);

/* ---- the registry: what idlecfg knows about one knob family, in its file ----
 *
 * Each src/knobs/X.c exports one `const struct knob_family knob_family_X`, and
 * src/knobs/registry.c lists them in planning order. Derived from that list:
 * the profile loader's keys (profile.c), the emitters' whitelist (knob_rule,
 * with how a service's file spells a value), the sysfs attributes and module
 * parameters detect reads, the hwdb properties with their values, the files
 * refresh digests, verify's runtime PM mapping and idle blockers, and
 * measure's mapping of power/control to knobs. */

/* a sysfs attribute detect reads, relative to a device of inventory class CLASS */
struct knob_attr {
        const char *class;              /* "pci", "usb", "sata", "disk", "i2c-adapter", ... */
        const char *attr;               /* "power/control", "link/l1_aspm", ... */
};

/* an hwdb property the family reads, with the values it accepts */
struct knob_property {
        const char *name;               /* "IDLECFG_PCI_RUNTIME_PM" */
        enum knob_kind kind;            /* KNOB_WORDS or KNOB_INT */
        const char *words;              /* KNOB_WORDS: "allow|deny" */
        bool list;                      /* KNOB_WORDS: a comma-separated list of the words */
        long min, max;                  /* KNOB_INT */
        const char *doc;                /* what it does, for idlecfg-hwdb(7) and explain */
};

/* verify: a device of CLASS with power/control = on is held awake by KNOB;
 * measure: the knob that sets a device's power/control */
struct knob_runtime_pm {
        const char *class;
        const char *knob;
};

/* measure: a knob whose value is a delay in seconds before what it sets powers
 * down (a codec's power_save): measure waits for it after a change */
struct knob_settle {
        const char *knob;
        const char *message;            /* N_() marked; "%llu" stands for the seconds */
};

/* verify: a value that keeps a device out of its idle state. Either ATTR, BAD
 * and MESSAGE, or CHECK where one look at one attribute does not tell (two
 * attributes, a sample over time, the setting of another device). */
struct knob_blocker {
        const char *class;              /* a device of this inventory class; NULL: of any */
        const char *knob;               /* the knob that would change it, NULL if none */
        const char *attr;               /* the attribute as detect read it ("link/l1_aspm") */
        const char *bad;                /* the values that block, an fnmatch(3) pattern ("0", "-*") */
        const char *message;            /* N_() marked; a "%s" in it stands for the value */
        /* what blocks device D (free it), NULL if nothing; *ret_devpath (free
         * it): the device whose setting of KNOB is the plan's, if not D */
        char *(*check)(const struct device *d, char **ret_devpath);
};
#define BLOCKER(cls, knob, attr, bad, message) { cls, knob, attr, bad, message, NULL }
#define BLOCKER_CHECK(cls, knob, check) { cls, knob, NULL, NULL, NULL, check }

/* Files and directories of the target root that a family's plan reads beyond
 * what every plan reads (hwdb, profiles, module index, kernel command line):
 * refresh digests them, so that a change there re-plans. PATHS is the array
 * the plan function itself reads them from; "%k" in a path stands for the
 * target kernel's release. */
enum knob_input_kind {
        INPUT_FILE,             /* a file: its stat data, else its content */
        INPUT_DIR,              /* a directory's files whose names end in MATCH */
        INPUT_NAMES,            /* the names in a directory that start with MATCH */
        INPUT_EXISTS,           /* whether the path exists (links followed inside the root) */
};
struct knob_input {
        enum knob_input_kind kind;
        const char *const *paths;
        size_t n_paths;
        const char *match;
};
#define KNOB_INPUT(kind, array, match) { kind, array, ELEMENTSOF(array), match }
/* an input's PATH with "%k" replaced by KERNEL; NULL where it has "%k" and
 * KERNEL is NULL (the file is the unknown kernel's) */
char *knob_input_path(const char *path, const char *kernel);

/* verify and measure: a platform prerequisite of deep idle on a machine that
 * suspends to idle. The family knows what to look for and what its absence
 * costs; the engine answers the questions about the running system (SYS)
 * and returns the verdicts, the cli prints them. */
struct prereq_sys {
        /* is a device of BUS ("platform") bound to DRIVER (/sys/bus/BUS/devices/ * /driver)? */
        bool (*bound)(const char *bus, const char *driver);
        /* is DRIVER registered on BUS (/sys/bus/BUS/drivers/DRIVER)? */
        bool (*registered)(const char *bus, const char *driver);
};
struct knob_prereq {
        const char *name;               /* "pmc", "pciehp": for JSON and the monitoring formats */
        /* <0: does not apply here; 0: met; >0: missing, *ret_what (free it)
         * names what is missing and what it costs (translated) */
        int (*check)(const struct inventory *inv, const struct plan *p, const struct prereq_sys *sys,
                     char **ret_what);
};
/* does this machine suspend to idle (/sys/power/mem_sleep has [s2idle] as its
 * default, or offers no deep)? False where mem_sleep is unknown */
bool knob_suspends_to_idle(const struct inventory *inv);

struct knob_family {
        const char *name;               /* "sata" */
        const char *section;            /* its profile section, NULL if it has none */
        /* profile keys of SECTION (their .section is NULL: SECTION applies) */
        const struct profile_key *keys;
        size_t n_keys;
        /* the emitters' whitelist for the knobs the family plans */
        const struct knob_rule *rules;
        size_t n_rules;
        /* hwdb properties, without the _REASON and _KERNEL companions */
        const struct knob_property *properties;
        size_t n_properties;
        /* what detect reads: sysfs attributes, module parameter directories
         * (read by the plan or verify), and more modules shown for information */
        const struct knob_attr *attrs;
        size_t n_attrs;
        const char *const *modules;     /* NULL-terminated, or NULL */
        const char *const *modules_shown;
        /* verify: runtime PM blockers by class */
        const struct knob_runtime_pm *runtime_pm;
        size_t n_runtime_pm;
        /* measure: more classes whose power/control the family's knob sets
         * through another device (an NVMe controller is a PCI function),
         * which verify does not name as the blocker's knob */
        const struct knob_runtime_pm *runtime_pm_through;
        size_t n_runtime_pm_through;
        /* verify: the family's other idle blockers, checked on every device */
        const struct knob_blocker *blockers;
        size_t n_blockers;
        /* verify: knobs whose power/control = auto verify follows: it reads
         * the device's runtime power (power/runtime_status, the PCI
         * power_state, the ACPI companion's real_power_state, the time
         * suspended) and says whether it reached D3cold, with the idle
         * blocker that says why not. NULL-terminated, or NULL */
        const char *const *runtime_followed;
        /* explain: classes whose setting is planned on the parent device
         * (an I2C adapter's runtime PM is its controller's) */
        const char *const *on_parent;   /* NULL-terminated, or NULL */
        /* measure: delays its knobs add before a device powers down */
        const struct knob_settle *settle;
        size_t n_settle;
        /* refresh: the root's files the plan function reads (see above) */
        const struct knob_input *inputs;
        size_t n_inputs;
        /* verify, measure: the platform's prerequisites of deep idle */
        const struct knob_prereq *prereqs;
        size_t n_prereqs;
        /* measure: is setting S (of any family) the one of the power/control
         * of DEVPATH, which this family plans on another device (an ATA
         * port's)? NULL if none */
        bool (*runtime_pm_placed)(const struct setting *s, const char *devpath);
        /* verify: the knob of a skip row the family plans on a device the
         * kernel itself may hold active (a kernel quirk): the "active"
         * blocker of that device names its reason. NULL if none */
        const char *active_note;
        void (*plan)(struct planctx *c);
        /* verify: the live value of setting S of the family where sysfs does
         * not show it (the kernel answers another way): 0 and *RET (free it),
         * or -errno (not such a setting, or no answer: verify reads the
         * setting's sysfs path, if it has one). NULL if none. */
        int (*live_value)(const struct setting *s, char **ret);
};

#define KNOB_LIST(field, array) .field = (array), .n_##field = ELEMENTSOF(array)

/* profile keys of a family */
#define KEY_CHOICE(k, c) { NULL, k, PROFILE_CHOICE, c, 0, 0 }
#define KEY_NUMBER(k, lo, hi) { NULL, k, PROFILE_INT_OR_KEEP, NULL, lo, hi }
/* the same for a knob idlecfg writes at run time: the key may take a value per
 * power source ("ac:A battery:B"), which idlecfg power-source switches */
#define KEY_CHOICE_SOURCE(k, c) { NULL, k, PROFILE_CHOICE, c, 0, 0, true }
#define KEY_NUMBER_SOURCE(k, lo, hi) { NULL, k, PROFILE_INT_OR_KEEP, NULL, lo, hi, true }
/* emitter rules */
#define RULE_WORDS(k, w, a, p) { k, KNOB_WORDS, w, 0, 0, a, p }
#define RULE_RANGE(k, lo, hi, a, p) { k, KNOB_INT, NULL, lo, hi, a, p }
/* a knob a service sets, whose file spells the words otherwise: SW is "word=value|..." */
#define RULE_WORDS_SERVICE(k, w, p, sw) { k, KNOB_WORDS, w, 0, 0, NULL, p, NULL, sw }
/* a sysfs attribute a driver sets again when it binds: the rule runs then too */
#define RULE_WORDS_ACTIONS(k, w, a, act) { k, KNOB_WORDS, w, 0, 0, a, NULL, NULL, NULL, act }
/* power/control a driver leaves to user space at its bind (nvidia): the rule
 * runs at bind, and a second one writes UNBIND when the driver goes */
#define RULE_WORDS_BIND(k, w, a, unbind) { k, KNOB_WORDS, w, 0, 0, a, NULL, NULL, NULL, "bind", unbind }
/* hwdb properties */
#define PROP_WORDS(n, w, d) { n, KNOB_WORDS, w, false, 0, 0, d }
#define PROP_LIST(n, w, d) { n, KNOB_WORDS, w, true, 0, 0, d }
#define PROP_RANGE(n, lo, hi, d) { n, KNOB_INT, NULL, false, lo, hi, d }

/* the plan functions, one per family */
void knob_pci_runtime_pm(struct planctx *c);
void knob_aspm(struct planctx *c);
void knob_sata(struct planctx *c);
void knob_usb(struct planctx *c);
void knob_bluetooth(struct planctx *c);
void knob_audio(struct planctx *c);
void knob_gpu(struct planctx *c);
void knob_i2c(struct planctx *c);
void knob_nvme(struct planctx *c);
void knob_suspend(struct planctx *c);
void knob_kernel(struct planctx *c);
void knob_wakeup(struct planctx *c);

/* the /proc/sys file of sysctl KEY ("vm.dirty_writeback_centisecs" ->
 * /proc/sys/vm/dirty_writeback_centisecs); below $IDLECFG_TEST_PROC instead of
 * /proc in the tests. NULL under umockdev without that variable: the testbed
 * mocks /sys only, and the host's /proc/sys is never read or written there. */
char *sysctl_proc_path(const char *key);
/* KEY's file under the real /proc/sys, whatever IDLECFG_TEST_PROC and umockdev say */
char *sysctl_canonical_path(const char *key);
void knob_wifi(struct planctx *c);
void knob_network(struct planctx *c);

/* ---- removable devices (knobs/removable.c) ---- */
/* where the kernel's "removable" comes from for a device */
struct removable_at {
        char *port;             /* the external-facing port's name (0000:00:07.0), or the USB4
                                 * port's (usb4_port1) for a device on a router's connector; free it */
        const char *first;      /* the first removable device below it (borrowed from the inventory) */
        const char *dock;       /* a removable PCIe switch port on the way (a dock's), NULL: none (borrowed) */
        /* a USB device on a root-hub port that shares its Type-C connector
         * with a USB4 port a router is attached to (a USB4 dock's USB3 tunnel
         * or the connector's USB 2 lines); NULL: none (all borrowed) */
        const struct usb4_router *router;
        const char *usb_port;   /* the root-hub port's devpath (.../usb4-port1) */
        const char *connector;  /* the Type-C connector's devpath (.../typec/port0) */
        bool superspeed;        /* the root hub is SuperSpeed: the router's USB3 tunnel */
};
/* Is the device at DEVPATH at or below a PCI function the kernel marked
 * removable (below an external-facing port), or a USB device on a Type-C
 * connector with a USB4 router attached? Then *RET says which port. */
bool removable_port(const struct inventory *inv, const char *devpath, struct removable_at *ret);
/* the words plan and explain use for AT ("below external-facing port ..."); free it */
char *removable_words(const struct removable_at *at);
/* What cannot be told apart: DEVPATH is a USB device not on a Type-C connector
 * removable_port() knows, while a USB4 router is attached on a port the
 * kernel links to no connector, or whose connector no root-hub port shares.
 * The words for explain, NULL: nothing to say; free it. */
char *removable_untold(const struct inventory *inv, const char *devpath);
/* after every family: each runtime PM or autosuspend setting of a removable
 * device becomes a skip naming the port, unless [removable] policy (or dock,
 * for a dock's devices) is same; then its reason names the port */
void knob_removable_apply(struct planctx *c);

/* the hwdb property NAME (an IDLECFG_ property of some family), NULL if unknown */
const struct knob_property *knob_property(const char *name);

extern const struct knob_family knob_family_pci, knob_family_aspm, knob_family_sata, knob_family_usb,
        knob_family_audio, knob_family_gpu, knob_family_i2c, knob_family_nvme, knob_family_suspend;
extern const struct knob_family knob_family_kernel;
extern const struct knob_family knob_family_wifi, knob_family_network, knob_family_bluetooth;
extern const struct knob_family knob_family_wakeup, knob_family_removable;

/* the target kernel's config (knob_input_path()'s "%k"), and how much of it is read */
#define KCONFIG_PATH "/boot/config-%k"
#define KCONFIG_MAX (4u << 20)
/* "yes" when OPTION is y or m in the target kernel's /boot/config-RELEASE,
 * "no" when it is not set, NULL when that file is not in the root; *RET_FILE
 * (free it) names the file */
const char *knob_kconfig_option(struct planctx *c, const char *option, char **ret_file, int *ret_error);
