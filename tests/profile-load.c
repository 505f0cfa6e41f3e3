/* tests/profile-load.c: the real profile loader and selection, for shell tests of the docs */
#include "config.h"

#include "db/profile-search.h"
#include "db/profile-select.h"
#include "db/profile.h"
#include "knobs/knob.h"
#include "knobs/registry.h"
#include "base/util.h"

/*
 * profile-load ROOT NAME
 *     Load profile NAME as idlecfg does, from ROOT/etc/idlecfg/profiles and
 *     ROOT/usr/share/idlecfg/profiles. Prints "ok", then "chain NAME
 *     PARENT ..." (the inherit chain), then one line per key set, "FROM
 *     [SECTION] KEY = VALUE" (FROM: the profile whose file set it), and
 *     exits 0; or prints the error as idlecfg would and exits 1.
 * profile-load --select ROOT [CHASSIS_TYPE]
 *     Choose the profile without --profile: ROOT/etc/idlecfg/idlecfg.conf,
 *     else the chassis type. Prints "NAME<TAB>REASON" and exits 0, or the
 *     error and exits 1.
 */
int main(int argc, char **argv)
{
        struct xerror e = {};
        _cleanup_free_ char *msg = NULL;
        int r;

        if (argc >= 3 && argc <= 4 && streq(argv[1], "--select")) {
                _cleanup_free_ char *name = NULL, *reason = NULL;

                r = profile_select(argv[2], NULL, argc == 4 ? argv[3] : NULL, &name, &reason, &e);
                if (r >= 0) {
                        printf("%s\t%s\n", name, reason);
                        return 0;
                }
        } else if (argc == 3) {
                struct profile *p = NULL;

                r = profile_load(argv[1], knob_profile_schema(), NULL, argv[2], &p, &e);
                if (r >= 0) {
                        printf("ok\nchain");
                        for (size_t i = 0; i < p->n_chain; i++)
                                printf(" %s", p->chain[i].name);
                        printf("\n");
                        for (size_t i = 0; i < p->n_settings; i++)
                                if (p->settings[i].battery)
                                        printf("%s [%s] %s = ac:%s battery:%s\n", p->settings[i].from,
                                               p->settings[i].section, p->settings[i].key, p->settings[i].value,
                                               p->settings[i].battery);
                                else
                                        printf("%s [%s] %s = %s\n", p->settings[i].from, p->settings[i].section,
                                               p->settings[i].key, p->settings[i].value);
                        profile_free(p);
                        return 0;
                }
        } else {
                fprintf(stderr, "usage: %s ROOT NAME | --select ROOT [CHASSIS_TYPE]\n", argv[0]);
                return 2;
        }
        msg = xerror_format(&e);
        printf("%s\n", msg);
        xerror_done(&e);
        return 1;
}
