// SPDX-License-Identifier: GPL-2.0-only
static int laptop_mode;
static int laptop_mode_handler(const struct ctl_table *table, int write,
			       void *buffer, size_t *lenp, loff_t *ppos)
{
	int ret = proc_dointvec_jiffies(table, write, buffer, lenp, ppos);

	if (!ret && write)
		pr_warn("%s: vm.laptop_mode is deprecated. Ignoring setting.\n",
			current->comm);

	return ret;
}

static const struct ctl_table vm_page_writeback_sysctls[] = {
	{
		.procname	= "dirty_writeback_centisecs",
		.data		= &dirty_writeback_interval,
		.maxlen		= sizeof(dirty_writeback_interval),
		.mode		= 0644,
		.proc_handler	= dirty_writeback_centisecs_handler,
	},
	{
		.procname	= "laptop_mode",
		.data		= &laptop_mode,
		.maxlen		= sizeof(laptop_mode),
		.mode		= 0644,
		.proc_handler	= laptop_mode_handler,
	},
};
