// SPDX-License-Identifier: GPL-2.0
/*
 * tests/vm/idlecfg_test_pme.c: the PME# that QEMU's e1000e cannot signal, for
 * the nic flow of make check-vm (tests/vm/nic.sh). Built on the host against
 * the guest kernel's headers and loaded in the guest, as
 * tests/vm/idlecfg_test_power.c stands in for an AC adapter.
 *
 * A real Intel 82574L lists PME from D0, D3hot and D3cold in its PM
 * capability and, when the driver armed the link-change wake (WUC.PME_EN and
 * WUFC.LNKC, which e1000e's __e1000_shutdown() sets on runtime suspend with
 * the link down), asserts PME# when the link comes up. QEMU's e1000e lists no
 * PME (hw/net/e1000e.c: PMC = PCI_PM_CAP_VER_1_1 | PCI_PM_CAP_DSI) and never
 * asserts it. So:
 *   1. at load, for each 8086:10d3 function: the PME the hardware lists
 *      (pdev->pme_support, D3hot and D3cold, as pci_pm_init() would have set
 *      it from the real PMC) and wakeup capability (power/wakeup), with the
 *      driver unbound around it, so that e1000e's probe and remove see one
 *      answer from pci_dev_run_wake();
 *   2. every 100 ms: a function runtime-suspended in D3hot, with PME_En in
 *      its PMCSR and WUC.PME_EN and WUFC.LNKC armed, whose STATUS.LU reads
 *      link up gets what the PCI core does on a PME (pci_pme_wakeup():
 *      pm_wakeup_event() and pm_request_resume()). QEMU 7.2 keeps the BARs
 *      decoding in D3hot, so STATUS can be read there.
 * The parameter pme_count counts the PMEs signalled.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/pci.h>
#include <linux/pm_runtime.h>
#include <linux/pm_wakeup.h>
#include <linux/workqueue.h>

#define TEST_VENDOR 0x8086
#define TEST_DEVICE 0x10d3      /* 82574L: QEMU's e1000e */
#define E1000_STATUS 0x00008
#define E1000_STATUS_LU 0x00000002
#define E1000_WUC 0x05800
#define E1000_WUC_PME_EN 0x00000002
#define E1000_WUFC 0x05808
#define E1000_WUFC_LNKC 0x00000001

static int pme_count;
module_param(pme_count, int, 0444);
MODULE_PARM_DESC(pme_count, "PMEs signalled on link up");

static struct pci_dev *test_pdev;
static void __iomem *test_regs;
static struct delayed_work test_poll;

static void test_poll_fn(struct work_struct *work)
{
	struct pci_dev *pdev = test_pdev;
	u16 pmcsr = 0;

	if (pdev->current_state == PCI_D3hot && pm_runtime_suspended(&pdev->dev) && pdev->pm_cap) {
		pci_read_config_word(pdev, pdev->pm_cap + PCI_PM_CTRL, &pmcsr);
		if ((pmcsr & PCI_PM_CTRL_PME_ENABLE) && (readl(test_regs + E1000_WUC) & E1000_WUC_PME_EN) &&
		    (readl(test_regs + E1000_WUFC) & E1000_WUFC_LNKC) &&
		    (readl(test_regs + E1000_STATUS) & E1000_STATUS_LU)) {
			pme_count++;
			dev_info(&pdev->dev, "idlecfg_test_pme: link up while runtime-suspended: PME\n");
			pm_wakeup_event(&pdev->dev, 100);
			pm_request_resume(&pdev->dev);
		}
	}
	schedule_delayed_work(&test_poll, msecs_to_jiffies(100));
}

static int __init test_pme_init(void)
{
	struct pci_dev *pdev = pci_get_device(TEST_VENDOR, TEST_DEVICE, NULL);
	bool bound;

	if (!pdev)
		return -ENODEV;
	if (!pdev->pm_cap) {
		pci_dev_put(pdev);
		return -ENODEV;
	}
	test_regs = pci_iomap(pdev, 0, 0x6000);
	if (!test_regs) {
		pci_dev_put(pdev);
		return -ENOMEM;
	}
	test_pdev = pdev;
	device_lock(&pdev->dev);
	bound = pdev->dev.driver != NULL;
	device_unlock(&pdev->dev);
	if (bound)
		device_release_driver(&pdev->dev);
	pdev->pme_support = (PCI_PM_CAP_PME_D3hot | PCI_PM_CAP_PME_D3cold) >> PCI_PM_CAP_PME_SHIFT;
	pdev->pme_poll = true;
	device_set_wakeup_capable(&pdev->dev, true);
	if (bound && device_attach(&pdev->dev) < 0)
		dev_warn(&pdev->dev, "idlecfg_test_pme: could not bind the driver again\n");
	dev_info(&pdev->dev, "idlecfg_test_pme: PME from D3hot and D3cold, link-up PME polled every 100 ms%s\n",
		 bound ? " (driver bound again)" : "");
	INIT_DELAYED_WORK(&test_poll, test_poll_fn);
	schedule_delayed_work(&test_poll, msecs_to_jiffies(100));
	return 0;
}

static void __exit test_pme_exit(void)
{
	cancel_delayed_work_sync(&test_poll);
	pci_iounmap(test_pdev, test_regs);
	pci_dev_put(test_pdev);
}

module_init(test_pme_init);
module_exit(test_pme_exit);
MODULE_DESCRIPTION("idlecfg check-vm: the link-up PME QEMU's e1000e does not signal");
MODULE_LICENSE("GPL");
