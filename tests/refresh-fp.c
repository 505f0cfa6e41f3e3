/* tests/refresh-fp.c: print refresh_fingerprint(), the fingerprint refresh
 * reads straight from /sys, to compare with detect's (test driver) */
#include "config.h"

#include "engine/refresh.h"

int main(void)
{
        _cleanup_free_ char *chassis = NULL;
        char fp[17];

        if (refresh_fingerprint(fp, &chassis) < 0)
                return 1;
        printf("%s %s\n", fp, chassis ? chassis : "-");
        return 0;
}
