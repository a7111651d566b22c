#!/usr/bin/env bash
# Rebuild korean-manuals.pdf (evaluation/korean_manuals) from Debian's Korean man pages.
# Usage: scripts/build_korean_manuals.sh OUTPUT_DIR
# Needs: man-db; the Korean man pages, which psmisc, man-db and passwd ship themselves
# (manpages-ko is not needed); col (bsdextrautils); LibreOffice Writer
# (`apt-get install --no-install-recommends libreoffice-writer-nogui`); and a Hangul font
# (fonts-noto-cjk; without one the Hangul comes out as missing glyphs).
# The PDF's bytes differ from build to build (timestamps, ids); its text does not.
set -euo pipefail

if [ "$#" -ne 1 ]; then
    echo "usage: $0 OUTPUT_DIR" >&2
    exit 2
fi
out_dir=$1
mkdir -p "$out_dir"

man_dir=/usr/share/man/ko/man1
commands=(pstree prtstat peekfd pslog manpath whatis lexgrog chfn)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
txt="$work/korean-manuals.txt"
: > "$txt"

first=1
for cmd in "${commands[@]}"; do
    page="$man_dir/$cmd.1.gz"
    if [ ! -e "$page" ]; then
        echo "skip: $page not found" >&2
        continue
    fi
    # ko_KR.UTF-8 is not generated on Debian images; C.UTF-8 renders the Hangul fine.
    # Fixed width so the line breaks do not depend on the terminal.
    # $(...) drops the trailing newline: the form feed then ends the footer line itself.
    # (A form feed on a line of its own lands on the next page when the previous page
    # is exactly full, and LibreOffice leaves that page blank; peekfd does exactly that.)
    text=$(LANG=C.UTF-8 MANWIDTH=80 man -l "$page" 2>/dev/null | col -b)
    if [ "$first" -eq 0 ]; then
        printf '\f' >> "$txt"   # each command starts on a new page
    fi
    first=0
    printf '%s' "$text" >> "$txt"
done
printf '\n' >> "$txt"

# A private LibreOffice profile so a running instance or a missing $HOME does not interfere.
soffice --headless -env:UserInstallation="file://$work/lo-profile" \
    --convert-to pdf --outdir "$work" "$txt" >/dev/null
mv "$work/korean-manuals.pdf" "$out_dir/korean-manuals.pdf"
echo "$out_dir/korean-manuals.pdf"
