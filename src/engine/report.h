/* report.h: what `idlecfg report` may tell of a machine, as plain data: the
 * model (never the unit), a key per installation, the distribution, and the
 * privacy rules every value passes (never printed here: cli/verb-report.c
 * renders it) */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "model/inventory.h"
#include "root/rootfs.h"
#include "base/util.h"

/* the DMI fields of the model key, in order: fwupd's and systemd's
 * HardwareID-3 (Manufacturer&Family&ProductName&ProductSku&
 * BaseboardManufacturer&BaseboardProduct), fields that name a model, none
 * that names a unit (no serial, UUID or asset tag is read by detect) */
extern const char *const report_model_fields[];

struct report_symptom {
        char *device;           /* a device name of the inventory (sysname) */
        char *text;
};

struct report_info {
        char model_key[37];     /* UUID-shaped, from SHA-256 of the model fields */
        struct kvlist model;    /* the model fields and the BIOS, chassis and CPU words */
        /* HMAC-SHA-256 of "idlecfg-report" keyed with the root's
         * /etc/machine-id, 32 hex digits: one key per installation (systemd's
         * application-specific machine ID scheme), never a hardware ID, and
         * not the machine ID itself; NULL with install_key_note saying why */
        char *install_key;
        char *install_key_note;
        struct kvlist os;       /* os-release: ID, VERSION_ID, PRETTY_NAME */
        struct report_symptom *symptoms;
        size_t n_symptoms;
};

/* Fill INFO from INV and the root; each SYMPTOMS entry is "DEVICE:TEXT" and
 * DEVICE must name a device of INV (-EINVAL with E saying which). */
int report_info_make(const struct inventory *inv, const struct rootfs *rfs, char *const *symptoms,
                     size_t n_symptoms, struct report_info *ret, struct xerror *e);
void report_info_done(struct report_info *info);

/* a device identity key that a report carries (vendor, device, class,
 * firmware revision...; never serial, uuid, address, wwid or the like) */
bool report_id_allowed(const char *key);
/* V looks like a unit's identity, whatever its key says: a MAC address
 * (six hex pairs, or a name with twelve hex digits as enx001122334455), a
 * UUID: it is left out */
bool report_value_private(const char *v);
/* S as a report may say it: the root's path taken out, the name after any
 * "/home/" cut to "/home/…" (a user name), a MAC address or UUID inside it
 * masked; a new string */
char *report_scrub(const char *root, const char *s);

/* HMAC-SHA-256 of MSG with KEY (RFC 2104), for the installation key */
void hmac_sha256(const void *key, size_t key_len, const void *msg, size_t msg_len, uint8_t out[32]);
