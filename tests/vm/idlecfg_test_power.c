// SPDX-License-Identifier: GPL-2.0
/*
 * tests/vm/idlecfg_test_power.c: an AC adapter and a battery for the test VM
 * of make check-vm (tests/vm/power-source.sh), which QEMU cannot emulate.
 * Built on the host against the guest kernel's headers and loaded in the
 * guest. Two power supplies, as a laptop's ACPI drivers register them:
 *   idlecfg-test-ac   type Mains, online = ac_online
 *   idlecfg-test-bat  type Battery, system scope, present, 80 %, Charging
 *                     on AC and Discharging on battery
 * The module parameter ac_online (0 or 1, default 1) is the plug: on the
 * kernel command line (idlecfg_test_power.ac_online=0) the guest boots on
 * battery; written at run time (/sys/module/idlecfg_test_power/parameters/
 * ac_online) it sends a change uevent of both supplies, as an ACPI
 * notification of the adapter does.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/power_supply.h>

static int ac_online = 1;
static struct power_supply *ac_psy, *bat_psy;

static enum power_supply_property ac_props[] = {
	POWER_SUPPLY_PROP_ONLINE,
};

static enum power_supply_property bat_props[] = {
	POWER_SUPPLY_PROP_STATUS,
	POWER_SUPPLY_PROP_PRESENT,
	POWER_SUPPLY_PROP_CAPACITY,
	POWER_SUPPLY_PROP_SCOPE,
};

static int ac_get(struct power_supply *psy, enum power_supply_property psp,
		  union power_supply_propval *val)
{
	if (psp != POWER_SUPPLY_PROP_ONLINE)
		return -EINVAL;
	val->intval = ac_online;
	return 0;
}

static int bat_get(struct power_supply *psy, enum power_supply_property psp,
		   union power_supply_propval *val)
{
	switch (psp) {
	case POWER_SUPPLY_PROP_STATUS:
		val->intval = ac_online ? POWER_SUPPLY_STATUS_CHARGING : POWER_SUPPLY_STATUS_DISCHARGING;
		return 0;
	case POWER_SUPPLY_PROP_PRESENT:
		val->intval = 1;
		return 0;
	case POWER_SUPPLY_PROP_CAPACITY:
		val->intval = 80;
		return 0;
	case POWER_SUPPLY_PROP_SCOPE:
		val->intval = POWER_SUPPLY_SCOPE_SYSTEM;
		return 0;
	default:
		return -EINVAL;
	}
}

static const struct power_supply_desc ac_desc = {
	.name = "idlecfg-test-ac",
	.type = POWER_SUPPLY_TYPE_MAINS,
	.properties = ac_props,
	.num_properties = ARRAY_SIZE(ac_props),
	.get_property = ac_get,
};

static const struct power_supply_desc bat_desc = {
	.name = "idlecfg-test-bat",
	.type = POWER_SUPPLY_TYPE_BATTERY,
	.properties = bat_props,
	.num_properties = ARRAY_SIZE(bat_props),
	.get_property = bat_get,
};

static int ac_online_set(const char *val, const struct kernel_param *kp)
{
	int v, r = kstrtoint(val, 10, &v);

	if (r < 0)
		return r;
	if (v != 0 && v != 1)
		return -EINVAL;
	ac_online = v;
	/* a value on the command line comes before init: nothing registered yet */
	if (ac_psy)
		power_supply_changed(ac_psy);
	if (bat_psy)
		power_supply_changed(bat_psy);
	return 0;
}

static const struct kernel_param_ops ac_online_ops = {
	.set = ac_online_set,
	.get = param_get_int,
};
module_param_cb(ac_online, &ac_online_ops, &ac_online, 0644);
MODULE_PARM_DESC(ac_online, "the AC adapter is plugged in (1) or not (0)");

static int __init idlecfg_test_power_init(void)
{
	struct power_supply *ac, *bat;

	ac = power_supply_register(NULL, &ac_desc, NULL);
	if (IS_ERR(ac))
		return PTR_ERR(ac);
	bat = power_supply_register(NULL, &bat_desc, NULL);
	if (IS_ERR(bat)) {
		power_supply_unregister(ac);
		return PTR_ERR(bat);
	}
	ac_psy = ac;
	bat_psy = bat;
	return 0;
}

static void __exit idlecfg_test_power_exit(void)
{
	struct power_supply *ac = ac_psy, *bat = bat_psy;

	ac_psy = NULL;
	bat_psy = NULL;
	power_supply_unregister(bat);
	power_supply_unregister(ac);
}

module_init(idlecfg_test_power_init);
module_exit(idlecfg_test_power_exit);
MODULE_DESCRIPTION("idlecfg check-vm: an emulated AC adapter and battery");
MODULE_LICENSE("GPL");
