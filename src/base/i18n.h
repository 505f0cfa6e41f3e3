/* i18n.h: gettext wiring, as util-linux does it */
#pragma once

#include "config.h"

#if ENABLE_NLS
# include <libintl.h>
# include <locale.h>
# define _(s) gettext(s)
# define P_(s, p, n) ngettext(s, p, n)
#else
# include <locale.h>
# define _(s) (s)
# define P_(s, p, n) ((n) == 1 ? (s) : (p))
# define bindtextdomain(d, dir) ((void) 0)
# define textdomain(d) ((void) 0)
#endif
#define N_(s) (s)
