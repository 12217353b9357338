#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Dump and probe a configfs tree, for comparing two fabrics' trees.

  cfs_tree.py dump ROOT [--exclude REGEX]...
      One line per entry below ROOT, sorted by path:
      "path<TAB>type+mode<TAB>value". A file's value is what reading it
      returns (escaped onto one line) or the error it fails with; a
      symbolic link's is its target. An entry whose path matches an
      --exclude regex keeps its path and mode, its value reads "<runtime>".

  cfs_tree.py probe ROOT SPEC [--nolog FILE --log-prefix PREFIX]
      SPEC holds "path<TAB>value" lines (value with \\n escapes). Writes
      each value to ROOT/path in order and prints
      "path<TAB>value<TAB>result<TAB>value read back", result being "ok"
      or the errno name. A refused write must leave the file as it was;
      when it does not, the line says "CHANGED". With --nolog, each
      refused write (but for EACCES: read-only files) after which the
      kernel log got no line starting with PREFIX is listed in FILE.
"""

import argparse
import errno
import os
import re
import stat
import sys


def escape(data):
    return data.decode('utf-8', 'backslashreplace').encode(
        'unicode_escape').decode('ascii')


def read_value(path):
    try:
        with open(path, 'rb') as f:
            return escape(f.read())
    except OSError as e:
        return '<%s>' % errno.errorcode.get(e.errno, str(e.errno))


def kind(mode):
    if stat.S_ISLNK(mode):
        return 'l'
    if stat.S_ISDIR(mode):
        return 'd'
    return 'f'


def dump(args):
    excludes = [re.compile(x) for x in args.exclude]
    lines = []
    for dirpath, dirnames, filenames in os.walk(args.root):
        for name in dirnames + filenames:
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, args.root)
            mode = os.lstat(path).st_mode
            k = kind(mode)
            if k == 'l':
                value = '-> ' + os.readlink(path)
            elif k == 'd':
                value = ''
            elif any(x.search(rel) for x in excludes):
                value = '<runtime>'
            else:
                value = read_value(path)
            lines.append('%s\t%s%04o\t%s' % (rel, k, stat.S_IMODE(mode),
                                             value))
    for line in sorted(lines):
        print(line)


class Kmsg:
    """New kernel log lines since the last call, from /dev/kmsg."""

    def __init__(self):
        self.fd = os.open('/dev/kmsg', os.O_RDONLY | os.O_NONBLOCK)
        os.lseek(self.fd, 0, os.SEEK_END)

    def new_lines(self):
        lines = []
        while True:
            try:
                rec = os.read(self.fd, 8192)
            except BlockingIOError:
                return lines
            except OSError as e:
                if e.errno == errno.EPIPE:  # overwritten records
                    continue
                raise
            msg = rec.decode('utf-8', 'replace').split(';', 1)[-1]
            lines.append(msg.split('\n', 1)[0])


def write_value(path, data):
    try:
        fd = os.open(path, os.O_WRONLY)
    except OSError as e:
        return errno.errorcode.get(e.errno, str(e.errno))
    try:
        os.write(fd, data)
        return 'ok'
    except OSError as e:
        return errno.errorcode.get(e.errno, str(e.errno))
    finally:
        os.close(fd)


def probe(args):
    kmsg = Kmsg() if args.nolog else None
    nolog = []
    with open(args.spec, encoding='utf-8') as f:
        spec = [line.rstrip('\n').split('\t', 1) for line in f
                if line.strip() and not line.startswith('#')]
    for rel, value in spec:
        path = os.path.join(args.root, rel)
        data = value.encode('utf-8').decode('unicode_escape').encode('latin-1')
        before = read_value(path)
        if kmsg:
            kmsg.new_lines()
        result = write_value(path, data)
        after = read_value(path)
        if result != 'ok':
            if after != before:
                result += ' CHANGED'
            # EACCES: a read-only file, refused before any store().
            if kmsg and result != 'EACCES' and not any(
                    line.startswith(args.log_prefix)
                    for line in kmsg.new_lines()):
                nolog.append('%s\t%s' % (rel, value))
        print('%s\t%s\t%s\t%s' % (rel, value, result, after))
    if args.nolog:
        with open(args.nolog, 'w', encoding='utf-8') as f:
            for line in nolog:
                print(line, file=f)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    sub = parser.add_subparsers(dest='cmd', required=True)
    p = sub.add_parser('dump')
    p.add_argument('root')
    p.add_argument('--exclude', action='append', default=[])
    p.set_defaults(func=dump)
    p = sub.add_parser('probe')
    p.add_argument('root')
    p.add_argument('spec')
    p.add_argument('--nolog')
    p.add_argument('--log-prefix', default='')
    p.set_defaults(func=probe)
    args = parser.parse_args()
    args.func(args)
    return 0


if __name__ == '__main__':
    sys.exit(main())
