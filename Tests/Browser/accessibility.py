"""Accessibility checks for the console's browser test: axe-core on every page, and what axe cannot judge by itself.

axe-core's axe.min.js is taken from the axe-playwright-python package (installed without its dependencies by
scripts/browser-tests.sh), so the check runs offline.
"""
import importlib.util
import os


def axe_source():
    spec = importlib.util.find_spec("axe_playwright_python")
    if spec is None or spec.origin is None:
        raise SystemExit("axe-core is missing: run the test through scripts/browser-tests.sh")
    with open(os.path.join(os.path.dirname(spec.origin), "axe.min.js"), encoding="utf-8") as file:
        return file.read()


RUN_AXE = """
const done = arguments[arguments.length - 1];
axe.run(document).then(
  result => done(result.violations.map(v => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.slice(0, 3).map(n => n.target.join(' ')).join('; ')}`)),
  error => done([`axe failed: ${error}`]));
"""

# Tables: a caption, text in every header cell (an action column's may be visually hidden), and a scrolling region
# that the keyboard reaches and that has a name. The page: a skip link to main, one h1, and one current nav item.
STRUCTURE = """
const problems = [];
for (const table of document.querySelectorAll('table')) {
  const caption = table.querySelector('caption');
  if (!caption || !caption.textContent.trim()) problems.push('a table without a caption');
  for (const th of table.querySelectorAll('th')) if (!th.textContent.trim()) problems.push('an empty header cell');
  const region = table.closest('.scroll');
  if (!region || region.getAttribute('tabindex') !== '0' || !region.getAttribute('aria-label'))
    problems.push('a table region the keyboard cannot reach or that has no name');
}
if (!document.querySelector('main#main')) problems.push('no main#main');
if (document.querySelectorAll('h1').length !== 1) problems.push('not exactly one h1');
const nav = document.querySelector('nav');
if (nav) {
  if (!document.querySelector('a.skip[href="#main"]')) problems.push('no skip link');
  if (nav.querySelectorAll('[aria-current="page"]').length !== 1) problems.push('not exactly one current navigation item');
}
return problems;
"""


def audit(driver, source):
    """Every axe-core violation and structural problem of the page shown."""
    if not driver.execute_script("return typeof window.axe === 'object'"):
        driver.execute_script(source)
    return driver.execute_async_script(RUN_AXE) + driver.execute_script(STRUCTURE)


def luminance(rgb):
    def channel(value):
        value /= 255
        return value / 12.92 if value <= 0.04045 else ((value + 0.055) / 1.055) ** 2.4
    red, green, blue = (channel(v) for v in rgb)
    return 0.2126 * red + 0.7152 * green + 0.0722 * blue


def contrast(first, second):
    light, dark = sorted([luminance(first), luminance(second)], reverse=True)
    return (light + 0.05) / (dark + 0.05)


def rgb(css):
    """(r, g, b) of a computed colour such as 'rgb(179, 92, 0)'."""
    return tuple(int(float(part)) for part in css[css.index("(") + 1:css.index(")")].split(",")[:3])
