/* verb-facts.h: the verb facts (idlecfg's state as external facts) */
#pragma once

#include "cli/run.h"

/* idlecfg_NAME=VALUE lines (facter's, OpenVox's executable external facts),
 * or one flat JSON object with --json (Salt's grains, facter too): the
 * status file's content and the version; any user may run it */
int verb_facts(struct run *c, int argc, char **argv);
