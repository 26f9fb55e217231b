"""The one reader of a number a user gave (a command line, a header line, a
JSON or TOML document): finite, of the kind asked, within its range,
representable as a float, ASCII digits only; an error is one line naming
where it came from, the value and what is allowed. docs/errors.md, "The
rule for numbers"."""

import math
import re
import sys

# the most characters of a value a message echoes (a 401-digit value is
# cut, its length said)
SHOWN = 40
# a file name is shown whole up to Linux's NAME_MAX (255 bytes), quoted
NAME_SHOWN = 257
# the longest text read as a number: a float has 17 significant digits
# and an exponent of 3; 64 characters hold any way of writing one, with
# room for leading zeros
MAX_TEXT = 64
FLOAT_MAX = sys.float_info.max

_WHOLE = re.compile(r"[+-]?[0-9]+")
_DECIMAL = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")


class NumberError(ValueError):
    """One line: where, the value and what is allowed."""

    def __init__(self, where, value, want):
        self.where, self.value, self.want = where, value, want
        super().__init__("%s is %s: want %s" % (where, shown(value), want)
                         if where else "%s: want %s" % (shown(value), want))


def shown(value, limit=SHOWN, quote=True):
    """@value as a message shows it: text quoted (unless not @quote),
    anything cut to about @limit characters with its length said."""
    text = (repr(value) if quote else value) if isinstance(value, str) \
        else _plain(value)
    if len(text) <= limit:
        return text
    return "%s...(%d characters)" % (text[:limit - 3], len(value) if
                                     isinstance(value, str) else len(text))


def _plain(value):
    if isinstance(value, int) and not isinstance(value, bool) and \
            value.bit_length() > 4 * SHOWN:
        try:
            return "a whole number of %d digits" % len(str(abs(value)))
        except ValueError:      # str() refuses past 4300 digits
            return "a whole number of more than 4300 digits"
    return str(value)


def is_number(v):
    """@v a JSON/TOML number (not a bool) a float can hold, finite."""
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return False
    if isinstance(v, int):
        return -FLOAT_MAX <= v <= FLOAT_MAX
    return math.isfinite(v)


def want_text(low=None, high=None, above=None, below=None, whole=False,
              unit=""):
    """What a range allows, in words: 'a whole number >= 1 <= 4096'."""
    parts = ([">= %s" % _g(low)] if low is not None else []) + \
        (["> %s" % _g(above)] if above is not None else []) + \
        (["< %s" % _g(below)] if below is not None else []) + \
        (["<= %s" % _g(high)] if high is not None else [])
    kind = "a whole number" if whole else "a finite number"
    return kind + (" of " + unit if unit else "") + \
        (" " + " and ".join(parts) if parts else "")


def _g(x):
    return "%d" % x if isinstance(x, int) else "%g" % x


def in_range(v, low=None, high=None, above=None, below=None, whole=False):
    """@v (a number already) is of the kind and in the range."""
    if not is_number(v) or (whole and not isinstance(v, int)):
        return False
    return (low is None or v >= low) and (high is None or v <= high) and \
        (above is None or v > above) and (below is None or v < below)


def from_text(text, whole=False):
    """The number @text writes in ASCII (a whole number where @whole), or
    None: no other script's digits, no '_', no nan or inf, no text longer
    than MAX_TEXT."""
    if not isinstance(text, str):
        return None
    t = text.strip()
    if len(t) > MAX_TEXT or not (_WHOLE if whole else _DECIMAL).fullmatch(t):
        return None
    v = int(t) if whole or _WHOLE.fullmatch(t) else float(t)
    return v if is_number(v) else None


def number(value, where=None, low=None, high=None, above=None, below=None,
           whole=False, want=None, unit=""):
    """@value (text, or a number from a document) as a number of its kind
    within the range, else NumberError naming @where.  Text gives an int
    where it is written as one (or @whole), else a float."""
    v = from_text(value, whole) if isinstance(value, str) else value
    if v is None or not in_range(v, low, high, above, below, whole):
        raise NumberError(where, value, want or want_text(
            low, high, above, below, whole, unit))
    return v


def arg(message, **bounds):
    """An argparse type taking what number() takes within @bounds, its
    error "'VALUE': " + @message (argparse puts 'argument --X: ' before
    it)."""
    import argparse

    def parse(text):
        try:
            return number(text, **bounds)
        except NumberError:
            raise argparse.ArgumentTypeError("%s%s" % (
                shown(text), message if message[:1] in ": " else
                ": " + message))
    return parse
