#!/bin/sh
# tests/layers.sh: the tree is as HACKING says. src/ has one folder per layer
# (HACKING "Layers" lists them bottom to top); every include names its folder
# and points to its own layer or one below; every source file sits in a
# layer folder and in that folder's source list of Makefile.am; every file
# HACKING names exists; no files include each other round a circle; no
# file-scope name of one folder means something else in another.
. "$top_srcdir/tests/lib.sh"
need python3
plan 18

# prints one line per problem; $1: what to check
layers() {
        python3 - "$top_srcdir" "$1" <<'PY'
import os, re, sys
top, what = sys.argv[1], sys.argv[2]
hacking = open(os.path.join(top, 'HACKING')).read()
sec = hacking[hacking.index('\nLayers\n'):hacking.index('\nData flow of install')]
# the layer folders, bottom to top: the "  src/NAME/" lines of Layers
order = re.findall(r'^  src/([a-z]+)/ ', sec, re.M)
rank = {d: i for i, d in enumerate(order)}
src = os.path.join(top, 'src')
code_dirs = sorted(d for d in os.listdir(src)
                   if os.path.isdir(os.path.join(src, d)) and
                   any(f.endswith(('.c', '.h')) for f in os.listdir(os.path.join(src, d))))
# (hidden folders and files: automake's .deps and .dirstamp of a build)
other_dirs = sorted(d for d in os.listdir(src) if os.path.isdir(os.path.join(src, d)) and d not in code_dirs and
                    not d.startswith('.'))
files = [(d, f) for d in code_dirs for f in sorted(os.listdir(os.path.join(src, d))) if f.endswith(('.c', '.h'))]
bad = []
if what == 'folders':
    if not order:
        bad.append('HACKING Layers names no src/NAME/ folder')
    for d in code_dirs:
        if d not in rank:
            bad.append('src/%s/ holds code but is not a layer of HACKING' % d)
    for d in order:
        if d not in code_dirs:
            bad.append('HACKING names the layer src/%s/, which holds no code' % d)
    for d in other_dirs:
        if 'src/%s/' % d not in sec:
            bad.append('src/%s/ is not described in HACKING Layers' % d)
    # a build in the source directory (as debhelper builds) leaves the
    # programs and libraries Makefile.am makes in src/ there: not loose
    mk = open(os.path.join(top, 'Makefile.am')).read().replace('\\\n', ' ')
    built = {p[len('src/'):] for m in re.finditer(r'^\w+_(?:PROGRAMS|LIBRARIES)\s*\+?=(.*)$', mk, re.M)
             for p in m.group(1).split() if re.match(r'src/[^/]+$', p)}
    loose = [f for f in os.listdir(src) if os.path.isfile(os.path.join(src, f)) and f not in built and
             not f.startswith('.')]
    for f in loose:
        bad.append('src/%s is in no folder' % f)
elif what in ('named', 'upward'):
    for d, f in files:
        for n, line in enumerate(open(os.path.join(src, d, f)), 1):
            m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
            if not m or m.group(1) == 'config.h':
                continue
            inc = m.group(1)
            where = 'src/%s/%s:%d: #include "%s"' % (d, f, n, inc)
            parts = inc.split('/')
            if what == 'named':
                if len(parts) != 2 or not os.path.isfile(os.path.join(src, inc)):
                    bad.append(where + ': not FOLDER/FILE of src/')
            elif len(parts) == 2 and parts[0] in rank and d in rank and rank[parts[0]] > rank[d]:
                bad.append(where + ': runs up from %s to %s' % (d, parts[0]))
elif what == 'lists':
    mk = open(os.path.join(top, 'Makefile.am')).read()
    mk = mk.replace('\\\n', ' ')
    lists = {}
    for m in re.finditer(r'^([a-z]+)_sources\s*=\s*(.*)$', mk, re.M):
        lists[m.group(1)] = m.group(2).split()
    for d, f in files:
        p = 'src/%s/%s' % (d, f)
        if p not in lists.get(d, []):
            bad.append('%s is not in %s_sources of Makefile.am' % (p, d))
    for d, l in lists.items():
        for p in l:
            if not p.startswith('src/%s/' % d):
                bad.append('%s_sources lists %s, of another folder' % (d, p))
            elif not os.path.isfile(os.path.join(top, p)):
                bad.append('%s_sources lists %s, which does not exist' % (d, p))
    for d in code_dirs:
        if d not in lists:
            bad.append('Makefile.am has no %s_sources' % d)
elif what == 'paths':
    # every path HACKING names (a word with a slash under a top folder)
    for m in sorted(set(re.findall(r'(?<![\w/.-])((?:src|tests|hwdb|profiles|rules|po|build-aux)/[A-Za-z0-9_./*-]*[A-Za-z0-9_*/])', hacking))):
        p = re.sub(r'(?<![A-Za-z])X(?![A-Za-z])', '*', m.rstrip('/'))   # X: any family
        if '*' in p or p.startswith('tests/data/machines/'):
            import glob
            if not glob.glob(os.path.join(top, p)):
                bad.append('HACKING names %s: no such file' % m)
        elif not os.path.exists(os.path.join(top, p)):
            bad.append('HACKING names %s: no such file' % m)
elif what == 'bare':
    # every bare file name HACKING gives (x.c, x.h) is a file of src/ or tests/
    names = set()
    for root, dirs, fs in os.walk(src):
        names.update(fs)
    for root, dirs, fs in os.walk(os.path.join(top, 'tests')):
        names.update(fs)
    for m in sorted(set(re.findall(r'(?<![/\w.-])([a-z][a-z0-9-]*\.[ch])\b', hacking))):
        if m not in names:
            bad.append('HACKING names %s: no such file in src/ or tests/' % m)
elif what == 'sizes':
    # no function over 120 lines (from the line of its name to its closing
    # brace) and no file over 1000 lines in src/: braces counted outside
    # comments, strings, character constants and preprocessor lines
    def blank(m):
        return re.sub(r'[^\n]', ' ', m.group(0))
    tok = re.compile(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|^[ \t]*#(?:[^\n]*\\\n)*[^\n]*',
                     re.S | re.M)
    for root, dirs, fs in sorted(os.walk(src)):
        dirs.sort()
        for f in sorted(fs):
            if not f.endswith(('.c', '.h')):
                continue
            p = os.path.join(root, f)
            rel = os.path.relpath(p, top)
            text = open(p, encoding='utf-8', errors='replace').read()
            if text.count('\n') > 1000:
                bad.append('%s: %d lines (at most 1000)' % (rel, text.count('\n')))
            s = tok.sub(blank, text)
            depth, head, start = 0, 0, None
            for i, c in enumerate(s):
                if c == '{':
                    if depth == 0:
                        before = s[head:i]
                        m = re.search(r'(\w+)\s*\([^;{}]*\)\s*$', before)
                        start = None
                        if m and not re.search(r'=\s*$', before):
                            start = (m.group(1), s.count('\n', 0, head + m.start()) + 1)
                    depth += 1
                elif c == '}':
                    depth -= 1
                    if depth == 0:
                        if start:
                            n = s.count('\n', 0, i) + 1 - start[1] + 1
                            if n > 120:
                                bad.append('%s:%d: %s() is %d lines (at most 120)' % (rel, start[1], start[0], n))
                        head, start = i + 1, None
                elif c == ';' and depth == 0:
                    head = i + 1
elif what == 'circles':
    # among the files of src/, every folder: a file and its header are one
    # unit (src/cli/run.c, src/cli/run.h: cli/run); an include is an arrow
    # from the including unit to the included one; a circle is a strongly
    # connected set of two or more units (Tarjan)
    arrows = {}
    for d, f in files:
        unit = '%s/%s' % (d, f[:-2])
        arrows.setdefault(unit, {})
        for n, line in enumerate(open(os.path.join(src, d, f)), 1):
            m = re.match(r'\s*#\s*include\s+"([a-z]+/[^"/]+)\.[ch]"', line)
            if m and m.group(1) != unit:
                arrows[unit].setdefault(m.group(1), 'src/%s/%s:%d' % (d, f, n))
    index, low, stack, on, circles = {}, {}, [], set(), []
    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v); on.add(v)
        for w in sorted(arrows.get(v, {})):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            scc = []
            while True:
                w = stack.pop(); on.discard(w); scc.append(w)
                if w == v:
                    break
            if len(scc) > 1:
                circles.append(sorted(scc))
    for v in sorted(arrows):
        if v not in index:
            visit(v)
    for c in circles:
        ties = ['%s -> %s (%s)' % (a, b, arrows[a][b]) for a in c for b in sorted(arrows[a]) if b in c]
        bad.append('include circle of %s: %s' % (', '.join(c), '; '.join(ties)))
elif what == 'names':
    # a function of file scope (static) is not named as a struct, a member
    # that a family or a callback fills in (a function pointer), or a
    # function of a header of another folder: one name, one meaning
    tok = re.compile(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)
    statics, named = [], {}
    for d, f in files:
        s = tok.sub(lambda m: re.sub(r'[^\n]', ' ', m.group(0)), open(os.path.join(src, d, f)).read())
        for m in re.finditer(r'^static\s+(?:inline\s+)?(?:const\s+)?(?:struct\s+|enum\s+)?\w+[\s*]+(\w+)\s*\(', s, re.M):
            statics.append((m.group(1), 'src/%s/%s:%d' % (d, f, s.count('\n', 0, m.start()) + 1), d))
        if f.endswith('.h'):
            for kind, rx in (('struct', r'\bstruct\s+(\w+)\s*\{'), ('member', r'\(\s*\*\s*(\w+)\s*\)\s*\('),
                             ('function', r'^(?!static\b|typedef\b)(?:const\s+)?(?:struct\s+|enum\s+)?\w+[\s*]+(\w+)\s*\(')):
                for m in re.finditer(rx, s, re.M):
                    named.setdefault(m.group(1), []).append((kind, 'src/%s/%s:%d' % (d, f, s.count('\n', 0, m.start()) + 1), d))
    for name, where, d in statics:
        for kind, there, d2 in named.get(name, []):
            if d2 != d:
                bad.append('%s: static %s() is also a %s of src/%s (%s)' % (where, name, kind, d2, there))
elif what == 'classes':
    # a device class a family's tables name (its runtime_pm, runtime_pm_through
    # and blockers: "ata-port", "sata", "drm") is that family's knowledge:
    # src/engine asks the registry (knobs/registry.h) and spells none of them,
    # but the subsystems whose /sys listings refresh's fingerprint reads
    tok = re.compile(r'/\*.*?\*/|//[^\n]*', re.S)
    classes = set()
    for f in sorted(os.listdir(os.path.join(src, 'knobs'))):
        if f.endswith('.c'):
            text = tok.sub(' ', open(os.path.join(src, 'knobs', f)).read())
            for m in re.finditer(r'knob_(?:runtime_pm|blocker)\s+\w+\[\]\s*=\s*\{(.*?)\n\};', text, re.S):
                classes.update(re.findall(r'\{\s*(?:BLOCKER\w*\(\s*)?"([a-z0-9_-]+)"', m.group(1)))
                classes.update(re.findall(r'BLOCKER\w*\(\s*"([a-z0-9_-]+)"', m.group(1)))
    classes -= {'pci', 'usb', 'nvme'}
    if not classes:
        bad.append('src/knobs: no device class found in the families\' tables')
    for f in sorted(os.listdir(os.path.join(src, 'engine'))):
        if not f.endswith(('.c', '.h')):
            continue
        text = tok.sub(lambda m: re.sub(r'[^\n]', ' ', m.group(0)), open(os.path.join(src, 'engine', f)).read())
        for m in re.finditer(r'"([a-z0-9_-]+)"', text):
            if m.group(1) in classes:
                bad.append('src/engine/%s:%d: "%s", a device class of a family\'s tables' %
                           (f, text.count('\n', 0, m.start()) + 1, m.group(1)))
elif what == 'notes':
    # the code, the hwdb, the rules and the profiles point to files the tree
    # has: no NAME.md that the repository does not ship, at its top or beside
    # the file (the project's notes live outside it: point to the man pages
    # or the source instead)
    for sub in ('src', 'hwdb', 'rules', 'profiles'):
        for root, dirs, fs in sorted(os.walk(os.path.join(top, sub))):
            dirs.sort()
            for f in sorted(fs):
                p = os.path.join(root, f)
                try:
                    text = open(p, encoding='utf-8').read()
                except (UnicodeDecodeError, OSError):
                    continue
                for m in re.finditer(r'\b([A-Za-z][A-Za-z0-9_-]*\.md)\b', text):
                    if not os.path.exists(os.path.join(top, m.group(1))) and \
                       not os.path.exists(os.path.join(root, m.group(1))):
                        bad.append('%s:%d: names %s, which the tree does not have' %
                                   (os.path.relpath(p, top), text.count('\n', 0, m.start()) + 1, m.group(1)))
elif what == 'prints':
    # nothing below src/cli prints: no printf, puts, perror, and no stdout or
    # stderr named, outside comments and strings (src/base's out-of-memory
    # message and the tests' fault injection excepted)
    tok = re.compile(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)
    bad_call = re.compile(r'\b(printf|vprintf|puts|putchar|perror)\s*\(|\b(stdout|stderr)\b')
    for d in order:
        if d in ('base', 'cli'):
            continue
        for f in sorted(os.listdir(os.path.join(src, d))):
            if not f.endswith(('.c', '.h')):
                continue
            text = open(os.path.join(src, d, f), encoding='utf-8', errors='replace').read()
            s = tok.sub(lambda m: re.sub(r'[^\n]', ' ', m.group(0)), text)
            for m in bad_call.finditer(s):
                bad.append('src/%s/%s:%d: %s below src/cli' % (d, f, s.count('\n', 0, m.start()) + 1,
                                                               m.group(0).rstrip('( ')))
for b in bad:
    print(b)
PY
}

point() {
        layers "$2" >"$tmp/$2.out" 2>&1
        if [ -s "$tmp/$2.out" ]; then not_ok "$1"; diag "$(cat "$tmp/$2.out")"; else ok "$1"; fi
}

point "every folder of src/ with code is a layer of HACKING, the others are described, no file is loose" folders
point "every include names FOLDER/FILE of src/" named
point "no include runs up: a file includes its own layer or one below" upward
point "Makefile.am lists each folder's files in its own FOLDER_sources, and only those" lists
point "every path HACKING names exists" paths
point "every file name HACKING gives (x.c, x.h) exists in src/ or tests/" bare
point "no function in src/ is over 120 lines, no file over 1000" sizes
point "nothing below src/cli prints (printf, puts, stdout, stderr), src/base's exits excepted" prints
point "no include circle in any folder of src/: no two files (a .c with its .h) include each other, directly or round a loop" circles
point "src/engine spells no device class of a family's tables (the ATA port's is the sata family's)" classes
point "src/, hwdb/, rules/ and profiles/ name no NAME.md the tree does not have" notes
point "no static function of one folder is named as a struct, a member or a function of another folder's header" names

# the check itself fails on an include that runs up (a copy of the tree with one)
mkdir -p "$tmp/copy" && cp -R "$top_srcdir/src" "$top_srcdir/HACKING" "$top_srcdir/Makefile.am" "$tmp/copy/"
printf '#include "cli/run.h"\n' >>"$tmp/copy/src/base/util.c"
(
        top_srcdir=$tmp/copy
        layers upward
) >"$tmp/planted.out" 2>&1
check "a planted include from src/base to src/cli is found" grep -q 'src/base/util.c:.*runs up from base to cli' "$tmp/planted.out"

# ... and a function of 121 lines, a file of 1001 (braces in strings and comments not counted)
{
        printf 'static int long_one(void)\n{\n'
        i=0; while [ $i -lt 118 ]; do printf '        x("{");   /* } */\n'; i=$((i + 1)); done
        printf '}\n'
        printf 'int short_one(int a)\n{\n        return a;\n}\n'
} >"$tmp/copy/src/base/planted.c"
i=0; while [ $i -lt 1001 ]; do echo; i=$((i + 1)); done >"$tmp/copy/src/cli/planted.h"
printf 'static void say(void)\n{\n        /* printf("in a comment"); */ fputs("stdout", stderr);\n}\n' >"$tmp/copy/src/engine/planted.c"
(
        top_srcdir=$tmp/copy
        layers sizes
        layers prints
) >"$tmp/planted-sizes.out" 2>&1
check "a planted function of 121 lines, a file of 1001 and an fputs to stderr in src/engine are found, nothing else" \
        sh -c 'grep -q "src/base/planted.c:1: long_one() is 121 lines" "$1" && grep -q "src/cli/planted.h: 1001 lines" "$1" &&
               grep -q "src/engine/planted.c:3: stderr below src/cli" "$1" && [ "$(wc -l <"$1")" -eq 3 ]' sh "$tmp/planted-sizes.out"

# ... and an include circle inside src/cli (a copy of the tree where the
# shared printers of print-next-steps.c include verb-install.h, whose file
# includes them)
mkdir -p "$tmp/copy2" && cp -R "$top_srcdir/src" "$top_srcdir/HACKING" "$top_srcdir/Makefile.am" "$tmp/copy2/"
printf '#include "cli/verb-install.h"\n' >>"$tmp/copy2/src/cli/print-next-steps.c"
(
        top_srcdir=$tmp/copy2
        layers circles
) >"$tmp/planted-circle.out" 2>&1
check "a planted include circle between src/cli/print-next-steps.c and verb-install.c is found, nothing else" \
        sh -c 'grep -q "^include circle of cli/print-next-steps, cli/verb-install: cli/print-next-steps -> cli/verb-install (src/cli/print-next-steps.c:[0-9]*); cli/verb-install -> cli/print-next-steps (src/cli/verb-install.c:[0-9]*)" "$1" &&
               [ "$(wc -l <"$1")" -eq 1 ]' sh "$tmp/planted-circle.out"

# ... and one round three files of src/engine (install -> rollback -> next-steps
# -> install, the circle there was), and a static run() in src/engine beside
# cli's struct run
mkdir -p "$tmp/copy3" && cp -R "$top_srcdir/src" "$top_srcdir/HACKING" "$top_srcdir/Makefile.am" "$tmp/copy3/"
printf '#include "engine/rollback.h"\n' >>"$tmp/copy3/src/engine/install.c"
printf '#include "engine/next-steps.h"\n' >>"$tmp/copy3/src/engine/rollback.h"
printf '#include "engine/install.h"\n' >>"$tmp/copy3/src/engine/next-steps.h"
(
        top_srcdir=$tmp/copy3
        layers circles
) >"$tmp/planted-circle3.out" 2>&1
check "a planted include circle of src/engine/install, next-steps and rollback is found, nothing else" \
        sh -c 'grep -q "^include circle of engine/install, engine/next-steps, engine/rollback: " "$1" &&
               [ "$(wc -l <"$1")" -eq 1 ]' sh "$tmp/planted-circle3.out"
printf 'static int run(int a)\n{\n        return a;\n}\n' >>"$tmp/copy3/src/engine/image.c"
(
        top_srcdir=$tmp/copy3
        layers names
) >"$tmp/planted-names.out" 2>&1
check "a planted static run() in src/engine/image.c is found beside cli's struct run, nothing else" \
        sh -c 'grep -q "^src/engine/image.c:[0-9]*: static run() is also a struct of src/cli (src/cli/run.h:[0-9]*)" "$1" &&
               ! grep -v "^src/engine/image.c:[0-9]*: static run() is also a " "$1"' sh "$tmp/planted-names.out"

# ... and an in-tree build (debhelper builds in the source directory): the
# program, the library and automake's stamps in src/ are no loose files, a
# source file there still is one
mkdir -p "$tmp/copy4" && cp -R "$top_srcdir/src" "$top_srcdir/HACKING" "$top_srcdir/Makefile.am" "$tmp/copy4/"
: >"$tmp/copy4/src/idlecfg"; : >"$tmp/copy4/src/libidlecfg.a"; : >"$tmp/copy4/src/.dirstamp"
mkdir -p "$tmp/copy4/src/.deps"; : >"$tmp/copy4/src/stray.c"
(
        top_srcdir=$tmp/copy4
        layers folders
) >"$tmp/planted-intree.out" 2>&1
check "a build in the source directory: src/idlecfg, src/libidlecfg.a, src/.dirstamp and src/.deps are not loose; a planted src/stray.c is, nothing else" \
        sh -c 'grep -qx "src/stray.c is in no folder" "$1" && [ "$(wc -l <"$1")" -eq 1 ]' sh "$tmp/planted-intree.out"
last_failed && diag "$(cat "$tmp/planted-intree.out")"

done_testing
