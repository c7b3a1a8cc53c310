#!/usr/bin/env python3
"""The console in a real browser (Debian's Chromium, driven by selenium), against the real server binary.

Signs in, creates a link in a form (with a rule from the rule editor), follows it with a plain HTTP client and sees
the clicks counted, draws its QR code in brand colours and with a logo uploaded as a file (zbarimg reads the PNGs),
picks the overview's date range and reads its chart at 375 px, reads the link's analytics (tiles, its chart and a
table per breakdown, the presets and date form, the CSV) on its page and at 375 px, opens a link in Instagram's and
TikTok's browsers (their User-Agents) and uses the page's ways out, edits the conversion schema with an invalid value and sees the error beside it (and
adds a later-window rule), revokes a key, adds an affiliate and a webhook, replays missed App Store notifications from
a stand-in of Apple's history with the app page's button and sees a 12-month commitment's committed total in the
affiliate's ledger, and checks that a user of one workspace cannot reach another's data by URL. Every page is checked
by axe-core (zero violations) and for what axe cannot see (captions, focus ring contrast, the error summary, forced
colours, text that grows with zoom, the menu on a phone). A screenshot of every page goes to test-artifacts/console/.
Usage: console_test.py <linkrunway binary> [artifacts folder]
"""
import json
import os
import re
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import time
import urllib.request
import zlib

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.support.wait import WebDriverWait

import accessibility
import app_store

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# Screenshots the documentation shows: written to docs/images/ when LINKRUNWAY_WRITE_SCREENSHOTS=1.
DOCUMENTED = {"05-overview": "console-overview.png"}
# The app's In-App Purchase key, as App Store Connect names it.
ISSUER_ID = "57246542-96fe-1a63-e053-0824d011072a"
KEY_ID = "2X9R4HXF34"
IPHONE = "Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Mobile/15E148 Safari/604.1"
INSTAGRAM = ("Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 "
             "Instagram 356.0.0.23.109 (iPhone15,3; iOS 18_1; en_US; en; scale=3.00; 1290x2796; 654932120; IABMV/1)")
TIKTOK_ANDROID = ("Mozilla/5.0 (Linux; Android 13; Pixel 7 Build/TQ3A.230805.001; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 "
                  "Chrome/116.0.0.0 Mobile Safari/537.36 trill_2023105030 JsSdk/1.0 AppName/trill BytedanceWebview/d8a21c6")


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def started(process, pattern, what):
    """The first match of `pattern` in the process's output (within 30 seconds)."""
    deadline = time.time() + 30
    while time.time() < deadline:
        found = re.search(pattern, process.stdout.readline())
        if found:
            return found
    raise SystemExit(f"{what} did not start")


class FakeAdServices:
    """`linkrunway dev fake-adservices`: Apple's AdServices API as the server's tests know it (token "tap" is attributed)."""
    def __init__(self, binary):
        self.process = subprocess.Popen([binary, "dev", "fake-adservices", "--port", "0"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        self.base = started(self.process, r"(http://127\.0\.0\.1:\d+)", "the fake AdServices API").group(1)

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=30)


class FakeAppStoreAPI:
    """`linkrunway dev fake-app-store-api`: Apple's notification history, serving `history` to the app's key."""
    def __init__(self, binary, port, key_path, history_path):
        self.process = subprocess.Popen([binary, "dev", "fake-app-store-api", "--port", str(port), "--issuer-id", ISSUER_ID, "--key-id", KEY_ID,
                                         "--bundle-id", "com.example.runway", "--public-key", key_path, "--history", history_path],
                                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        started(self.process, r"listening on http://127\.0\.0\.1:\d+", "the fake App Store Server API")

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=30)


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Server:
    def __init__(self, binary, directory, apple_ads_url, environment):
        self.process = subprocess.Popen([binary, "serve", "--port", "0", "--database-url", f"sqlite:{directory}/console.db",
                                         "--apple-ads-url", apple_ads_url],
                                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                                        env={**os.environ, "LINKRUNWAY_LOG_LEVEL": "warn", **environment})
        self.key = None
        deadline = time.time() + 30
        while time.time() < deadline:
            line = self.process.stdout.readline()
            self.key = self.key or next((w for w in line.split() if w.startswith("lr_ak_")), None)
            found = re.search(r"listening on http://127\.0\.0\.1:(\d+)", line)
            if found:
                self.base = f"http://127.0.0.1:{found.group(1)}"
                return
        raise SystemExit("the server did not start")

    def api(self, method, path, body=None, key=None):
        request = urllib.request.Request(self.base + path, method=method, data=json.dumps(body).encode() if body is not None else None,
                                         headers={"Authorization": f"Bearer {key or self.key}", "Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request) as response:
                text = response.read()
                return json.loads(text) if text else None
        except urllib.error.HTTPError as error:
            raise AssertionError(f"{method} {path}: {error.code} {error.read().decode()}") from None

    def follow(self, path, host="localhost", agent=IPHONE, referer=None):
        """A click from an iPhone (or `agent`), as any HTTP client makes it (no cookies, no browser)."""
        opener = urllib.request.build_opener(NoRedirect)
        request = urllib.request.Request(self.base + path, headers={"Host": host, "User-Agent": agent, **({"Referer": referer} if referer else {})})
        try:
            opener.open(request)
        except urllib.error.HTTPError as answer:
            return answer.code
        return 200

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=30)


class Browser:
    def __init__(self, base, artifacts):
        options = webdriver.ChromeOptions()
        for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,1000", "--lang=en-US"]:
            options.add_argument(argument)
        options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
        # A time zone other than the server's, to see dates shown in the viewer's.
        service = Service(shutil.which("chromedriver") or "/usr/bin/chromedriver", env={**os.environ, "TZ": "Europe/Paris"})
        self.driver = webdriver.Chrome(service=service, options=options)
        self.driver.set_page_load_timeout(30)
        self.driver.set_script_timeout(60)
        self.base = base
        self.artifacts = artifacts
        self.axe = accessibility.axe_source()
        self.audited = 0

    def open(self, path):
        self.driver.get(self.base + path)
        self.settle()

    def settle(self):
        """Waits for the page (and the one reload the time-zone script may ask for) to be complete."""
        for _ in range(2):
            WebDriverWait(self.driver, 15, ignored_exceptions=[WebDriverException]).until(
                lambda d: d.execute_script("return document.readyState") == "complete")
            time.sleep(0.05)
        self.audit()

    def audit(self):
        """axe-core and the structural checks on the page shown: nothing may be found."""
        if not self.driver.current_url.startswith(self.base + "/console") or self.driver.current_url.endswith(".svg"):
            return
        problems = accessibility.audit(self.driver, self.axe)
        check(not problems, f"accessibility of {self.driver.current_url}:\n  " + "\n  ".join(problems))
        self.audited += 1

    def style(self, css, prop):
        return self.driver.execute_script("return getComputedStyle(document.querySelector(arguments[0])).getPropertyValue(arguments[1])", css, prop)

    def visible(self, css):
        """Whether the element is rendered (selenium's is_displayed takes any closed <details> as hiding its content)."""
        return self.driver.execute_script("return document.querySelector(arguments[0]).checkVisibility()", css)

    def forced_colors(self, active):
        self.driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "forced-colors", "value": "active" if active else "none"}]})

    def submit(self, element):
        """Clicks a submit button and waits for the next page (a marker on the old window is gone on the new one)."""
        self.driver.execute_script("window.__leaving = true")
        element.click()
        WebDriverWait(self.driver, 15, ignored_exceptions=[WebDriverException]).until(
            lambda d: d.execute_script("return window.__leaving === undefined && document.readyState === 'complete'"))
        self.settle()

    def find(self, css):
        return self.driver.find_element(By.CSS_SELECTOR, css)

    def fill(self, form_css, values):
        form = self.find(form_css)
        for name, value in values.items():
            field = form.find_element(By.NAME, name)
            if isinstance(value, bool):
                if field.is_selected() != value:
                    field.click()
            elif field.tag_name == "select":
                field.find_element(By.CSS_SELECTOR, f"option[value='{value}']").click()
            else:
                field.clear()
                field.send_keys(value)
        self.submit(form.find_element(By.CSS_SELECTOR, "button[type=submit]"))

    def heading(self):
        return self.find("h1").text

    def text(self):
        return self.find("body").text

    def shot(self, name):
        self.driver.save_screenshot(os.path.join(self.artifacts, f"{name}.png"))
        if name in DOCUMENTED and os.environ.get("LINKRUNWAY_WRITE_SCREENSHOTS") == "1":
            self.driver.save_screenshot(os.path.join(ROOT, "docs", "images", DOCUMENTED[name]))


def check(condition, message):
    if not condition:
        raise AssertionError(message)


def check_focus_ring(browser):
    """The focus ring has 3:1 against white, the page's background and the dark header bar."""
    page = accessibility.rgb(browser.style("body", "background-color"))
    for css, backgrounds in [("nav a", [(255, 255, 255), page]), ("main button[type=submit]", [page]),
                             ("form.signout button", [accessibility.rgb(browser.style(".bar", "background-color"))])]:
        browser.driver.execute_script("document.querySelector(arguments[0]).focus()", css)
        ring = accessibility.rgb(browser.style(css, "outline-color"))
        check(browser.style(css, "outline-style") == "solid", f"{css} shows a focus ring")
        for background in backgrounds:
            ratio = accessibility.contrast(ring, background)
            check(ratio >= 3, f"the focus ring of {css} has {ratio:.2f}:1 on {background}")


def check_zoom(browser):
    """Chart labels are text in relative units: twice the root font size, twice the labels."""
    before = float(browser.style(".chart .y-axis li", "font-size")[:-2])
    browser.driver.execute_script("document.documentElement.style.fontSize = '200%'")
    after = float(browser.style(".chart .y-axis li", "font-size")[:-2])
    browser.driver.execute_script("document.documentElement.style.fontSize = ''")
    check(abs(after - 2 * before) < 0.5, f"chart labels grow with the text size ({before} px, then {after} px)")


def check_forced_colors(browser):
    """In forced-colours mode buttons keep their edges and the current section is marked."""
    browser.forced_colors(True)
    try:
        check(browser.style("main button", "border-top-style") == "solid" and float(browser.style("main button", "border-top-width")[:-2]) >= 1,
              "a button keeps its edge in forced colours")
        check(browser.style("nav a[aria-current=page]", "outline-style") != "none", "the current section is outlined in forced colours")
        check(browser.style("nav li:not(:first-child) a", "outline-style") == "none", "the other sections are not")
        browser.shot("05b-overview-forced-colours")
    finally:
        browser.forced_colors(False)


def check_error_summary(browser, fields):
    """A refused form: a summary with role=alert that has focus, "Error" in the title, and every bad field marked."""
    summary = browser.find("#error-summary")
    check(summary.get_attribute("role") == "alert", "the error summary is an alert")
    check(browser.driver.execute_script("return document.activeElement.id") == "error-summary", "focus is on the error summary")
    check(browser.driver.title.startswith("Error: "), f"the title says there is an error: {browser.driver.title}")
    links = [a.get_attribute("href").split("#")[-1] for a in summary.find_elements(By.CSS_SELECTOR, "a")]
    check(links == fields, f"the summary links to {fields}, not {links}")
    for field in fields:
        check(browser.find(f"#{field}").get_attribute("aria-invalid") == "true", f"{field} is marked invalid")


def check_phone(browser, path):
    """At 375 px the sections fold into a menu (no script needed) and a table's buttons stay in view."""
    browser.driver.set_window_size(375, 800)
    try:
        browser.open(path)
        check(not browser.visible("nav ul"), "the sections are folded on a phone")
        browser.find("nav summary").click()
        check(browser.visible("nav ul"), "the menu opens")
        width = browser.driver.execute_script("return document.documentElement.clientWidth")
        for button in browser.driver.find_elements(By.CSS_SELECTOR, "td.actions button"):
            right = browser.driver.execute_script("return arguments[0].getBoundingClientRect().right", button)
            check(right <= width, f"a table's button is in view on a phone ({right} > {width})")
        browser.shot("10b-keys-phone")
    finally:
        browser.driver.set_window_size(1280, 1000)
    browser.open(path)
    check(not browser.visible("nav summary") and browser.visible("nav ul"), "no menu button on a wide screen")


def png_logo(path):
    """A 64×64 PNG of a red disc on transparency, written with zlib (no imaging library)."""
    rows = b""
    for y in range(64):
        rows += b"\x00" + b"".join(b"\xe6\x39\x46\xff" if (x - 31.5) ** 2 + (y - 31.5) ** 2 <= 30 ** 2 else b"\x00\x00\x00\x00" for x in range(64))
    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
    with open(path, "wb") as file:
        file.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 64, 64, 8, 6, 0, 0, 0)) + chunk(b"IDAT", zlib.compress(rows))
                   + chunk(b"IEND", b""))


def decoded(browser, url, directory):
    """What zbarimg reads from a PNG the console serves, fetched with the browser's session (the console's CSP lets no
    script fetch)."""
    cookies = "; ".join(f"{c['name']}={c['value']}" for c in browser.driver.get_cookies())
    with urllib.request.urlopen(urllib.request.Request(url, headers={"Cookie": cookies})) as response:
        check(response.headers["Content-Type"] == "image/png", f"{url} is a PNG")
        data = response.read()
    path = os.path.join(directory, "code.png")
    with open(path, "wb") as file:
        file.write(data)
    return subprocess.run(["zbarimg", "--raw", "-q", path], capture_output=True, text=True).stdout.strip()


def check_qr(browser, ws, link, directory):
    """The link page's QR form: colours, quiet zone and print size drawn and decoded; refused colours marked; a logo
    uploaded as a file, drawn into a code that decodes, a file that is not a logo refused, and the logo removed."""
    # A code holds the link's URL with the QR marker, so its scans are told apart from taps.
    link_page, link_url = f"/console/links/{link['id']}?ws={ws}", link["url"] + "?qr=1"
    browser.open(link_page)
    browser.fill("form[method=get]:has(#fg)", {"fg": "1d3557", "bg": "fefae0", "margin": "2", "size": "2048"})
    image = browser.find(".qr img")
    check("fg=1d3557" in image.get_attribute("src") and image.get_attribute("naturalWidth") not in (None, "0"), "the code is drawn in the chosen colours")
    png = browser.driver.find_element(By.LINK_TEXT, "Download as PNG").get_attribute("href")
    read = decoded(browser, png, directory)
    check("size=2048" in png and read == link_url, f"the PNG for print decodes to the link with the QR marker ({png}: {read!r}, not {link_url})")
    browser.shot("04b-link-qr")
    browser.fill("form[method=get]:has(#fg)", {"fg": "ffffff", "bg": "000000"})
    check_error_summary(browser, ["fg"])
    check(not browser.driver.find_elements(By.CSS_SELECTOR, ".qr img"), "no code is drawn while the colours are refused")

    browser.submit(browser.driver.find_element(By.LINK_TEXT, "Upload or remove logos"))
    check(browser.heading() == "QR logos" and "No logos yet" in browser.text(), f"the logos page, got {browser.heading()}")
    not_a_logo = os.path.join(directory, "old.gif")
    with open(not_a_logo, "wb") as file:
        file.write(b"GIF89a")
    browser.find("#file").send_keys(not_a_logo)
    browser.submit(browser.find("form[enctype] button[type=submit]"))
    check_error_summary(browser, ["file"])
    logo = os.path.join(directory, "red-disc.png")
    png_logo(logo)
    browser.find("#name").send_keys("Red disc")
    browser.find("#file").send_keys(logo)
    browser.submit(browser.find("form[enctype] button[type=submit]"))
    check("Uploaded the logo Red disc." in browser.text() and "64 × 64 pixels" in browser.text(), "the logo is uploaded and listed")
    browser.shot("04c-qr-logos")
    browser.open(link_page)
    browser.fill("form[method=get]:has(#fg)", {"logo": browser.find("#logo option:nth-child(2)").get_attribute("value"), "size": "600"})
    png = browser.driver.find_element(By.LINK_TEXT, "Download as PNG").get_attribute("href")
    read = decoded(browser, png, directory)
    check("logo=qrl" in png and read == link_url, f"the code with the logo decodes to the link with the QR marker ({png}: {read!r})")
    browser.open(f"/console/links/qr-logos?ws={ws}")
    browser.submit(browser.find("button[aria-label='Remove Red disc']"))
    check("Removed the logo Red disc." in browser.text() and "No logos yet" in browser.text(), "the logo is removed")


def set_dates(browser, start, end):
    """Dates typed into the overview's date inputs (their text depends on the browser's language, so set directly)."""
    browser.driver.execute_script("document.getElementById('from').value = arguments[0]; document.getElementById('to').value = arguments[1]", start, end)
    browser.submit(browser.find("main form.filter button[type=submit]"))


def check_date_range(browser, ws):
    """The overview's presets and its from–to form, applied to the figures; a start after the end is refused."""
    browser.open(f"/console?ws={ws}")
    check(browser.find(".presets a[aria-current]").text == "30 days", "the last 30 days by default")
    browser.submit(browser.driver.find_element(By.LINK_TEXT, "7 days"))
    check(browser.find(".presets a[aria-current]").text == "7 days" and browser.find(".tile .value").text == "3", "the 7-day preset keeps today's clicks")
    today = browser.find("#to").get_attribute("value")
    set_dates(browser, "2020-01-01", "2020-01-31")
    check("Nothing from" in browser.text() and browser.find(".tile .value").text == "0", "a range without data counts nothing")
    check(not browser.driver.find_elements(By.CSS_SELECTOR, ".presets a[aria-current]"), "no preset is current for a chosen range")
    set_dates(browser, today, "2020-01-31")
    check_error_summary(browser, ["from"])
    set_dates(browser, today, today)
    check(browser.find(".tile .value").text == "3" and "(1 day)" in browser.text(), "a single day")
    browser.shot("05c-overview-one-day")


def check_chart_phone(browser, path, shot="05d-overview-chart-375"):
    """At 375 px the chart fits the screen, its labels do not overlap and stay at least 12 px, and its axis counts
    whole clicks; every table's region fits the screen too (it scrolls inside)."""
    browser.driver.set_window_size(375, 800)
    try:
        browser.open(path)
        width = browser.driver.execute_script("return document.documentElement.clientWidth")
        box = browser.driver.execute_script("return document.querySelector('.chart').getBoundingClientRect().toJSON()")
        check(box["left"] >= 0 and box["right"] <= width, f"the chart fits the phone's width ({box['right']} > {width})")
        labels = browser.driver.execute_script(
            "return [...document.querySelectorAll('.chart .y-axis li, .chart .x-axis span, .chart .legend li')].map(e => "
            "({text: e.textContent, size: parseFloat(getComputedStyle(e).fontSize), box: e.getBoundingClientRect().toJSON()}))")
        for label in labels:
            check(label["size"] >= 12, f"the label {label['text']} is at least 12 px ({label['size']})")
            check(label["box"]["right"] <= width + 1, f"the label {label['text']} is on screen")
        for first, second in zip(labels, labels[1:]):
            a, b = first["box"], second["box"]
            apart = a["right"] <= b["left"] or b["right"] <= a["left"] or a["bottom"] <= b["top"] or b["bottom"] <= a["top"]
            check(apart, f"the labels {first['text']} and {second['text']} do not overlap")
        ticks = [li.text for li in browser.find(".chart").find_elements(By.CSS_SELECTOR, ".y-axis li")]
        check(all(re.fullmatch(r"\d+", tick) for tick in ticks) and ticks[-1] == "0", f"the axis counts whole clicks: {ticks}")
        for right in browser.driver.execute_script("return [...document.querySelectorAll('main .scroll')].map(e => e.getBoundingClientRect().right)"):
            check(right <= width + 1, f"a table's region fits the phone's width ({right} > {width})")
        browser.driver.execute_script("document.querySelector('.chart').scrollIntoView()")
        browser.shot(shot)
    finally:
        browser.driver.set_window_size(1280, 1000)


def check_link_analytics(browser, server, ws, link):
    """A link's page shows what the API's figures say: the tiles, a chart of its days and a table per breakdown (country
    and referrer with clicks and opens only), over the presets and the date form (a start after the end refused, a
    range without data), with the whole as CSV; at 375 px the chart and the tables fit."""
    path = f"/console/links/{link['id']}?ws={ws}"
    figures = server.api("GET", f"/v1/links/{link['id']}/stats")
    browser.open(path)
    panel = "section[aria-labelledby=analytics]"
    tiles = [e.text for e in browser.driver.find_elements(By.CSS_SELECTOR, f"{panel} .tile .value")]
    total = figures["total"]
    check(tiles[:3] == [str(total["clicks"]), str(total["installs"]), str(sum(total["events"].values()))] and total["installs"] >= 1,
          f"the tiles are the link's figures: {tiles}, {total}")
    check(browser.find(f"{panel} .chart svg").get_attribute("aria-label").startswith("Clicks, installs and events of this link per day"),
          "the link's chart is named")
    captions = [c.text for c in browser.driver.find_elements(By.CSS_SELECTOR, f"{panel} .scroll table caption")]
    names = [c.split(",")[0] for c in captions if not c.startswith(("Clicks", "Revenue"))]
    check(names == ["Platform", "OS version", "Country", "Referrer", "In-app browser", "Variant", "Scan or tap"], f"a table per breakdown: {captions}")
    def table(name):
        return browser.driver.find_element(By.XPATH, f"//section[@aria-labelledby='analytics']//table[starts-with(caption, '{name},')]")
    platforms = [row.text.split()[:2] for row in table("Platform").find_elements(By.CSS_SELECTOR, "tbody tr")]
    check(platforms == [["ios", str(total["clicks"] - 1)], ["android", "1"]], f"clicks by platform: {platforms}")
    check([th.text for th in table("Country").find_elements(By.CSS_SELECTOR, "thead th")] == ["country", "clicks", "opens"],
          "the country table counts clicks and opens only")
    check("news.example.com" in table("Referrer").text, "the referrer's host")
    check("ios 18" in table("OS version").text, "the install's OS version")
    browser.shot("14b-link-analytics")
    browser.submit(browser.driver.find_element(By.CSS_SELECTOR, f"{panel} .presets a:first-child"))
    check(browser.driver.current_url.endswith("#analytics") and browser.find(f"{panel} .presets a[aria-current]").text == "7 days",
          "a preset opens the page at its analytics")
    check(browser.find(f"{panel} .tile .value").text == str(total["clicks"]), "today's clicks are in the last 7 days")
    today = browser.find("#to").get_attribute("value")
    set_dates(browser, "2020-01-01", "2020-01-31")
    check("Nothing in this range yet" in browser.text(), "a range without data counts nothing")
    set_dates(browser, today, "2020-01-31")
    check_error_summary(browser, ["from"])
    check(browser.find("form.card h2").text == "Edit", "the rest of the page is there")
    browser.open(path)
    href = browser.find(f"{panel} a[download][href*='stats.csv']").get_attribute("href")
    # Downloaded as the browser would, with its session (the console's policy lets no script fetch anything).
    cookies = "; ".join(f"{c['name']}={c['value']}" for c in browser.driver.get_cookies())
    with urllib.request.urlopen(urllib.request.Request(href, headers={"Cookie": cookies})) as response:
        check(response.headers["Content-Type"].startswith("text/csv"), "the download is CSV")
        csv = response.read().decode()
    check(csv.startswith("dimension,key,clicks,opens,installs,previews,bots") and f"\r\ntotal,total,{total['clicks']}," in csv, f"the CSV: {csv[:200]}")
    check_chart_phone(browser, path + "#analytics", "14c-link-analytics-375")


def check_in_app_page(browser, server, ws, app):
    """A link that asks for it, opened in Instagram's browser on an iPhone (its User-Agent): the page says where the
    person is, offers Safari with the same click, the App Store and the link to copy (the button works under the page's
    policy), passes axe-core, and counts one click named instagram; the continue link followed counts no other. In
    TikTok on Android, the first button is an intent."""
    link = server.api("POST", "/v1/links", {"workspaceId": ws, "appId": app["id"], "path": "social", "inAppBrowserPage": True,
                                            "destinations": {"web": "https://example.com/social"}})
    driver = browser.driver
    own = driver.execute_script("return navigator.userAgent")
    page = browser.base.replace("127.0.0.1", "localhost") + "/social"
    try:
        driver.execute_cdp_cmd("Emulation.setUserAgentOverride", {"userAgent": INSTAGRAM})
        driver.get(page)
        browser.settle()
        check("You are in Instagram\u2019s own browser, which cannot open Runway Demo." in browser.text(), f"the page says where: {browser.text()}")
        problems = accessibility.audit(driver, browser.axe)
        check(not problems, "accessibility of the in-app browser's page:\n  " + "\n  ".join(problems))
        browser.audited += 1
        safari = browser.find("#open").get_attribute("href")
        signed = browser.find("#get").get_attribute("data-click")
        check(browser.find("#open").text == "Open in Safari" and safari.endswith("/social?lr_continue=" + signed) and safari.startswith("x-safari-http"),
              f"Safari gets the same click: {safari}")
        check(browser.find("#get").get_attribute("href") == "https://apps.apple.com/app/id1234567890", "the App Store is the second way")
        browser.shot("14f-in-app-browser")
        origin = browser.base.replace("127.0.0.1", "localhost")
        driver.execute_cdp_cmd("Browser.grantPermissions", {"origin": origin, "permissions": ["clipboardReadWrite", "clipboardSanitizedWrite"]})
        browser.find("#copy").click()
        WebDriverWait(driver, 10).until(lambda d: d.find_element(By.CSS_SELECTOR, "#copy").text == "Link copied")
        copied = driver.execute_async_script("navigator.clipboard.readText().then(arguments[0], e => arguments[0]('refused: ' + e))")
        check(copied == browser.find("#copy").get_attribute("data-link") and copied.endswith("lr_continue=" + signed),
              f"the copy button, which the page's policy lets run, puts the link with its click on the clipboard: {copied}")
        figures = server.api("GET", f"/v1/links/{link['id']}/stats")
        named = {row["key"]: row["clicks"] for b in figures["breakdowns"] if b["dimension"] == "inAppBrowser" for row in b["rows"]}
        check(named == {"instagram": 1}, f"one click, named instagram: {named}")
        continued = copied[copied.index("/social"):]
        check(server.follow(continued) == 302, "the continue link, opened in Safari, answers the link")
        again = server.api("GET", f"/v1/links/{link['id']}/stats")["total"]["clicks"]
        check(again == 1, f"and counts no second click ({again})")
        driver.execute_cdp_cmd("Emulation.setUserAgentOverride", {"userAgent": TIKTOK_ANDROID})
        driver.get(page)
        browser.settle()
        check(browser.find("#open").get_attribute("href").startswith("intent://localhost") and "S.browser_fallback_url=" in browser.find("#open").get_attribute("href"),
              f"TikTok on Android gets an intent: {browser.find('#open').get_attribute('href')}")
        check("TikTok\u2019s own browser" in browser.text(), "named TikTok")
    finally:
        driver.execute_cdp_cmd("Emulation.setUserAgentOverride", {"userAgent": own})


def main():
    binary = os.path.abspath(sys.argv[1])
    artifacts = os.path.abspath(sys.argv[2] if len(sys.argv) > 2 else os.path.join(ROOT, "test-artifacts", "console"))
    os.makedirs(artifacts, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="console-test-") as directory:
        adservices = FakeAdServices(binary)
        # Apple's App Store: a test authority the server trusts, and the port its history's stand-in will listen on.
        authority = app_store.AppStoreAuthority(directory)
        apple_port = free_port()
        server = Server(binary, directory, adservices.base, {"LINKRUNWAY_APP_STORE_ROOT": authority.root,
                                                             "LINKRUNWAY_APP_STORE_API_URL": f"http://127.0.0.1:{apple_port}"})
        apple = None
        browser = None
        try:
            workspaces = server.api("GET", "/v1/workspaces")["items"]
            ws = workspaces[0]["id"]
            app = server.api("POST", "/v1/apps", {"workspaceId": ws, "name": "Runway Demo", "teamId": "ABCDE12345",
                                                  "bundleId": "com.example.runway", "appStoreId": "1234567890"})
            server_key = server.api("POST", "/v1/keys", {"kind": "server", "workspaceId": ws, "name": "backend"})
            other = server.api("POST", "/v1/workspaces", {"name": "Other Team"})
            server.api("POST", "/v1/domains", {"workspaceId": other["id"], "hostname": "other.example.com"})
            theirs = server.api("POST", "/v1/links", {"workspaceId": other["id"], "path": "secret-offer"})
            server.api("POST", "/v1/users", {"workspaceId": ws, "email": "ana@example.com", "password": "correct horse battery"})

            browser = Browser(server.base, artifacts)
            # Sign in with the admin key.
            browser.open("/console")
            check(browser.heading() == "Sign in", "an anonymous visit goes to the sign-in page")
            browser.shot("01-sign-in")
            key_form = "form:nth-of-type(1)"
            # A wrong key is announced like any refused form.
            browser.fill(key_form, {"key": "lr_ak_" + "0" * 48})
            check(browser.heading() == "Sign in", "a wrong key stays on the sign-in page")
            check_error_summary(browser, [])
            check("is not right" in browser.find("#error-summary").text, "the summary says what went wrong")
            browser.fill(key_form, {"key": server.key})
            check(browser.heading() == "Overview", f"signed in, got {browser.heading()}")
            check("Nothing in the last 30 days yet" in browser.text(), "the empty overview says what to do")
            check("Times are shown in Europe/Paris" in browser.text(), "dates follow the viewer's time zone")
            browser.shot("02-overview-empty")

            # Create a link in the form; an invalid destination first.
            browser.open("/console/links")
            browser.fill("form.card", {"path": "spring", "appPath": "/promo/spring", "web": "http://not-https.example.com", "campaign": "spring",
                                       "previewImage": "ftp://images.example.com/x.png"})
            check(browser.find("#web").get_attribute("aria-invalid") == "true", "the bad destination is marked")
            check_error_summary(browser, ["web", "previewImage"])
            browser.shot("03-links-error")
            # Metadata that is not a JSON object is refused by the console itself, beside what is still wrong.
            browser.fill("form.card", {"previewImage": "", "metadata": "not json"})
            check_error_summary(browser, ["metadata", "web"])
            browser.fill("form.card", {"web": "https://example.com/spring", "metadata": '{"promo": "spring"}', "android": "https://play.example.com/runway",
                                       "previewTitle": "Spring offer", "interstitial": True, "inAppBrowserPage": True})
            check(browser.heading() == "Link /spring", f"the new link's page, got {browser.heading()}")
            made = server.api("GET", "/v1/links?q=spring")["items"][0]
            check(made["metadata"] == {"promo": "spring"} and made["destinations"]["android"]["url"] == "https://play.example.com/runway"
                  and made["preview"]["title"] == "Spring offer" and made["interstitial"] is True and made["inAppBrowserPage"] is True,
                  f"every field reaches the link: {made}")
            check("Link created" in browser.text(), "a notice says so")
            browser.fill("form.card", {"campaign": "spring-2", "interstitial": False})
            check("Saved." in browser.text() and server.api("GET", f"/v1/links/{made['id']}")["interstitial"] is False, "the link is edited")
            # The rule editor, without script: a refused rule is marked in its own row; a good one becomes the link's.
            browser.fill("form.card", {"rule0-name": "Desktops in France", "rule0-platform-desktop": True, "rule0-countries": "France",
                                       "rule0-url": "https://example.com/fr"})
            check_error_summary(browser, ["rule0-countries"])
            check(browser.find("#rule0-platform-desktop").is_selected(), "what was ticked stays ticked")
            browser.shot("04-rule-error")
            browser.fill("form.card", {"rule0-countries": "FR, BE", "utmSource": "console", "clickLimit": "1000"})
            ruled = server.api("GET", f"/v1/links/{made['id']}")
            check(ruled.get("rules") == [{"name": "Desktops in France", "when": {"platforms": ["desktop"], "countries": ["FR", "BE"]},
                                          "url": "https://example.com/fr"}] and ruled.get("utm") == {"source": "console"}
                  and ruled.get("clickLimit") == 1000, f"the rule, UTM value and limit are the link's: {ruled}")
            check("Rule 1" in browser.text() and browser.find("#rule1-name").get_attribute("value") == "", "the saved rule, and a blank row for another")
            browser.shot("04-rules")
            link_url = browser.driver.current_url

            # Follow it with a plain HTTP client, three times, and see the clicks counted.
            for _ in range(3):
                check(server.follow("/spring") == 302, "an iPhone is redirected")
            browser.driver.get(link_url)
            clicks = browser.find("section[aria-labelledby=analytics] .tile .value").text
            check(clicks == "3", f"three clicks counted, saw {clicks}")
            check(browser.find(".qr img").get_attribute("naturalWidth") not in (None, "0"), "the QR code is drawn")
            browser.shot("04-link")
            check_qr(browser, ws, made, directory)
            browser.open(f"/console?ws={ws}")
            check(browser.find(".tile .value").text == "3", "the overview counts the clicks")
            check(len(browser.driver.find_elements(By.CSS_SELECTOR, ".chart svg polyline")) == 3, "the chart draws three series")
            check(browser.find(".chart svg").get_attribute("aria-label").startswith("Clicks, installs and events per day"), "the chart is named")
            check(browser.driver.find_elements(By.CSS_SELECTOR, ".chart + .scroll table"), "a data table beside the chart")
            browser.shot("05-overview")
            check_focus_ring(browser)
            check_zoom(browser)
            check_forced_colors(browser)
            check_date_range(browser, ws)
            check_chart_phone(browser, f"/console?ws={ws}")
            for i in range(26):
                server.api("POST", "/v1/links", {"workspaceId": ws, "path": f"batch-{i:02d}", "campaign": "batch"})
            browser.open(f"/console/links?ws={ws}")
            check(browser.find("main form.card").location["y"] < browser.find("main table").location["y"], "the create form is at the top")
            browser.shot("06-links")
            browser.fill("form[role=search]", {"q": "SPRING"})
            check([a.text.rsplit("/", 1)[-1] for a in browser.driver.find_elements(By.CSS_SELECTOR, "main tbody td:first-child a")] == ["spring"],
                  "the search finds the link by its path")
            browser.open(f"/console/links?ws={ws}&q=batch")
            first = len(browser.driver.find_elements(By.CSS_SELECTOR, "main tbody tr"))
            browser.submit(browser.driver.find_element(By.LINK_TEXT, "Next links"))
            check(first == 25 and len(browser.driver.find_elements(By.CSS_SELECTOR, "main tbody tr")) == 1, "links come in pages of 25")

            # The conversion schema: an invalid fine value shows its error beside the cell.
            browser.open(f"/console/schema?ws={ws}&app={app['id']}")
            check("No schema yet" in browser.text(), "no schema yet")
            browser.fill("main form[method=post]", {"type0": "INSTALL", "fine0": "1", "type1": "PURCHASE", "fine1": "99"})
            invalid = browser.find("input[name=fine1]")
            check(invalid.get_attribute("aria-invalid") == "true", "the fine value is marked invalid")
            message = browser.find("#error-fine1").text
            check("0 to 63" in message, f"the error says why: {message}")
            check_error_summary(browser, ["fine1"])
            browser.shot("07-schema-error")
            # Cells the console cannot read are all marked at once.
            browser.fill("main form[method=post]", {"minAmount0": "lots", "fine1": "forty"})
            check_error_summary(browser, ["minAmount0", "fine1"])
            # The fix, and a second-window rule (coarse values only) in the same save.
            browser.fill("main form[method=post]", {"minAmount0": "", "fine1": "40", "w2_type0": "SUBSCRIPTION", "w2_coarse0": "high"})
            check("Saved as version 1" in browser.text(), "the schema saves")
            check(browser.find("input[name=w2_type0]").get_attribute("value") == "SUBSCRIPTION", "the later window is kept")
            browser.shot("08-schema")
            region = browser.find("main .scroll")
            lock = browser.find("input[name=lock0]")
            check(browser.driver.execute_script("return arguments[0].getBoundingClientRect().right <= arguments[1].getBoundingClientRect().right"
                                                " && arguments[1].scrollWidth <= arguments[1].clientWidth", lock, region),
                  "the lock window column is in view at 1,280 px")
            # Refused again: the saved version is still shown.
            browser.fill("main form[method=post]", {"fine0": "64"})
            check(browser.driver.title.startswith("Error: ") and "Version 1, saved" in browser.text() and "No schema yet" not in browser.text(),
                  "after a refusal the page still shows the saved version")

            # Apps: one registered in the console (two bad windows marked at once), then edited.
            browser.open(f"/console/apps?ws={ws}")
            check("Runway Demo" in browser.find("main table").text, "the app made through the API is listed")
            browser.fill("form.card", {"name": "Second App", "teamId": "ABCDE12345", "bundleId": "com.example.second",
                                       "probabilisticMinutes": "soon", "viewThroughHours": "later"})
            check_error_summary(browser, ["probabilisticMinutes", "viewThroughHours"])
            browser.fill("form.card", {"probabilisticMinutes": "15", "viewThroughHours": "0"})
            check(browser.heading() == "Second App" and "Registered Second App." in browser.text(), "the new app's page")
            browser.fill("form.card", {"name": "Second App Pro", "policy": "optional"})
            check(browser.heading() == "Second App Pro" and browser.find("#policy").get_attribute("value") == "optional", "the app is edited")
            browser.shot("09a-app")

            # Keys: create a publishable key (shown once), revoke the server key.
            browser.open(f"/console/keys?ws={ws}")
            browser.fill("form.card", {"kind": "publishable", "app": app["id"], "name": "iOS app"})
            secret = browser.find(".secret").text
            check(secret.startswith("lr_pk_"), "the new key is shown once")
            browser.shot("09-key-created")
            browser.open(f"/console/keys?ws={ws}")
            check(secret not in browser.driver.page_source, "and never again")
            browser.submit(browser.find("button[aria-label='Revoke backend']"))
            check("Revoked backend" in browser.text(), "revoked")
            check(server.api("GET", f"/v1/keys/{server_key['key']['id']}")["revokedAt"] is not None, "the API sees it revoked")
            browser.shot("10-keys")
            check_phone(browser, f"/console/keys?ws={ws}")

            # Two installs from the app: one follows the link's clicks (same address), one claims Apple Ads; each buys.
            publishable = server.api("POST", "/v1/keys", {"kind": "publishable", "appId": app["id"], "name": "test app"})["secret"]
            backend = server.api("POST", "/v1/keys", {"kind": "server", "workspaceId": ws, "name": "revenue"})["secret"]
            for install, token in [("0b6b2f7e-1c1d-4e52-9d0a-3f4e5a6b7c01", None), ("0b6b2f7e-1c1d-4e52-9d0a-3f4e5a6b7c02", "tap")]:
                server.api("POST", "/v1/installs/match", {"installId": install, "platform": "ios", "osVersion": "18.0", "consent": True}, key=publishable)
                if token:
                    check(server.api("POST", "/v1/claims/apple-ads", {"installId": install, "token": token}, key=publishable)["status"] == "attributed",
                          "the Apple Ads claim is attributed")
                server.api("POST", "/v1/events", {"eventId": f"{install[:-2]}e{install[-1]}", "type": "PURCHASE", "installId": install, "appId": app["id"],
                                                  "timestamp": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "amount": 499, "currency": "USD"},
                           key=backend)
            browser.open(f"/console/apple-ads?ws={ws}")
            campaigns = "\n".join(table.text for table in browser.driver.find_elements(By.CSS_SELECTOR, "main .scroll table"))
            check("61000" in campaigns and "(none)" not in browser.text(), f"only Apple Ads' campaign shows: {campaigns}")
            check(re.search(r"61000 1 1 \$4\.99", campaigns), f"its one install, event and revenue: {campaigns}")

            # The other pages, with real data where there is some.
            simulated = server.api("POST", "/v1/simulate/installs", {"appId": app["id"], "ip": "198.51.100.4", "installId": "5d1d6c1e-0f5a-4c55-9d8c-2f3e8a1b7c90"})
            browser.open(f"/console/installs?ws={ws}")
            installs_table = "//table[caption='Installs, newest first']//tbody/tr"
            rows = {row.find_element(By.CSS_SELECTOR, "td a").text: row.text for row in browser.driver.find_elements(By.XPATH, installs_table)}
            check(len(rows) == 3 and rows[simulated["installId"]].endswith("simulated") and "Apple Ads 61000" in rows["0b6b2f7e-1c1d-4e52-9d0a-3f4e5a6b7c02"],
                  f"recent installs are listed, the simulated one marked: {rows}")
            events = browser.driver.find_element(By.XPATH, "//table[caption='Events, newest first']").text
            check(events.count("PURCHASE") == 2 and "$4.99" in events, f"recent events are listed: {events}")
            browser.shot("14a-installs")
            browser.fill("main form.filter:has(#simulated)", {"simulated": "true"})
            check([a.text for a in browser.driver.find_elements(By.XPATH, installs_table + "/td[1]/a")] == [simulated["installId"]],
                  "the list narrows to simulated installs")
            installs = lambda: browser.driver.find_elements(By.CSS_SELECTOR, ".tile .value")[1].text
            browser.open(f"/console?ws={ws}")
            real = int(installs())
            browser.open(f"/console?ws={ws}&simulated=on")
            check(int(installs()) == real + 1, "the overview counts the simulated install only when asked")
            # The link's own analytics: an Android click from a news site beside the iPhones', and an install that opened the
            # link in the app (a referrer match) and bought something.
            check(server.follow("/spring", agent="Mozilla/5.0 (Linux; Android 14; Pixel 8) Mobile", referer="https://news.example.com/a?b=c") == 302,
                  "an Android phone is redirected")
            opened = "0b6b2f7e-1c1d-4e52-9d0a-3f4e5a6b7c03"
            server.api("POST", "/v1/resolve", {"url": made["url"], "platform": "ios", "installId": opened}, key=publishable)
            check(server.api("POST", "/v1/installs/match", {"installId": opened, "platform": "ios", "osVersion": "18.0", "consent": True},
                             key=publishable)["linkId"] == made["id"], "the install is the link's")
            server.api("POST", "/v1/events", {"eventId": "spring-order", "type": "PURCHASE", "installId": opened, "appId": app["id"],
                                              "timestamp": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "amount": 299, "currency": "EUR"},
                       key=backend)
            check_link_analytics(browser, server, ws, made)
            check_in_app_page(browser, server, ws, app)
            for path, name, heading in [(f"/console/postbacks?ws={ws}", "11-postbacks", "Postbacks"), (f"/console/apple-ads?ws={ws}", "12-apple-ads", "Apple Ads"),
                                        (f"/console/affiliates?ws={ws}", "13-affiliates", "Affiliates"),
                                        (f"/console/ad-networks?ws={ws}", "13b-ad-networks", "Ad networks"),
                                        (f"/console/users?ws={ws}", "13c-users", "Users"),
                                        (f"/console/info-plist?ws={ws}&app={app['id']}", "13d-info-plist", "Info.plist"),
                                        (f"/console/installs?ws={ws}&id={simulated['installId']}", "14-install", f"Install {simulated['installId']}")]:
                browser.open(path)
                check(browser.heading() == heading, f"{path}: {browser.heading()}")
                browser.shot(name)

            # A program, an affiliate with a code for it, and a webhook, added in forms.
            browser.open(f"/console/affiliates?ws={ws}")
            browser.fill("form.card[action='/console/affiliate-programs']", {"app": app["id"], "programName": "Creators", "percent": "30"})
            check("Added the program Creators." in browser.text() and "30% of every payment" in browser.text(), "the program is listed")
            browser.fill("form.card[action='/console/affiliates']", {"name": "Creator Co"})
            check(browser.heading() == "Creator Co" and "Added Creator Co" in browser.text(), "the new affiliate's page")
            browser.fill("form.card[action$='/codes']", {"code": "creatorco"})
            check("Gave the code" in browser.text(), "a code for the program")
            codes = browser.driver.find_element(By.XPATH, "//table[caption='Codes customers type into the app']").text
            check("CREATORCO Creators" in codes, f"the affiliate's codes are listed: {codes}")
            affiliate_page = browser.driver.current_url
            browser.shot("14b-affiliate")
            browser.open(f"/console/webhooks?ws={ws}")
            browser.fill("form.card", {"url": "https://hooks.example.com/in"})
            check(browser.find(".secret").text.startswith("whsec_"), "the signing secret is shown once")
            check("install, event, click" in browser.text(), "every topic by default")
            browser.shot("14c-webhooks")

            # A customer who typed the code subscribes monthly with a 12-month commitment while the server is away; the
            # app page's Replay button fetches the two payments from Apple's history, and the ledger shows the commitment.
            token = server.api("POST", "/v1/app-store/bind", {"refCode": "CREATORCO"}, key=publishable)["appAccountToken"]
            server.api("POST", f"/v1/apps/{app['id']}/app-store-surfaces", {"environment": "production"})
            browser.open(f"/console/apps/{app['id']}?ws={ws}")
            check("needs the app's In-App Purchase key" in browser.text(), "without a key the page says how to give one")
            key_path = app_store.in_app_purchase_key(directory, KEY_ID)
            server.api("PUT", f"/v1/apps/{app['id']}/app-store-key", {"issuerId": ISSUER_ID, "keyId": KEY_ID, "privateKey": open(key_path).read()})
            ends = int(time.time() * 1000) + 300 * 86_400_000
            history = [authority.notification("SUBSCRIBED" if month == 1 else "DID_RENEW", "com.example.runway", 1234567890, {
                "transactionId": f"commit-{month}", "originalTransactionId": "commit-1", "productId": "premium.monthly",
                "purchaseDate": int(time.time() * 1000) - (3 - month) * 3_600_000, "type": "Auto-Renewable Subscription", "price": 9990,
                "currency": "USD", "appAccountToken": token.upper(), "billingPlanType": "MONTHLY_WITH_12_MONTH_COMMITMENT",
                "commitmentInfo": {"billingPeriodNumber": month, "totalBillingPeriods": 12, "commitmentExpiresDate": ends, "commitmentPrice": 119880},
            }, minutes_ago=(3 - month) * 60) for month in (1, 2)]
            with open(os.path.join(directory, "history.json"), "w") as file:
                json.dump(history, file)
            apple = FakeAppStoreAPI(binary, apple_port, key_path, os.path.join(directory, "history.json"))
            browser.open(f"/console/apps/{app['id']}?ws={ws}")
            yesterday = time.strftime("%Y-%m-%d", time.gmtime(time.time() - 86_400))
            browser.fill("form.replay", {"since": yesterday, "environment": "production"})
            check("2 notifications: 2 new, 0 duplicate, 0 refused" in browser.text(), f"the replay processed both: {browser.text()}")
            check(browser.driver.execute_script("const r = document.querySelector('main [role=status]').getBoundingClientRect();"
                                                " return r.top >= 0 && r.bottom <= window.innerHeight"), "what the press did is in view")
            browser.shot("14d-app-store-replay")
            browser.fill("form.replay", {"since": yesterday})
            check("2 notifications: 0 new, 2 duplicate" in browser.text(), "pressed again, it changes nothing")
            browser.fill("form.replay", {"since": "last week"})
            check_error_summary(browser, ["since"])
            browser.driver.get(affiliate_page)
            browser.settle()
            ledger = browser.driver.find_element(By.XPATH, "//table[caption='Ledger (every posting balances to zero)']").text
            for month in (1, 2):
                check(f"payment {month} of 12, $35.96 committed in all" in ledger, f"the commitment beside payment {month}: {ledger}")
            check(ledger.count("$2.99; affiliate_pending -$2.99") == 2, f"each monthly payment earns its own commission: {ledger}")
            browser.shot("14e-affiliate-commitment")

            # On a phone.
            browser.driver.set_window_size(390, 900)
            browser.open(f"/console?ws={ws}")
            browser.shot("15-overview-phone")
            width = browser.driver.execute_script("return document.documentElement.scrollWidth")
            wide = browser.driver.execute_script(
                "return [...document.querySelectorAll('body *')].filter(e => e.getBoundingClientRect().right > document.documentElement.clientWidth + 1)"
                ".slice(0, 5).map(e => e.tagName + '.' + e.className).join(', ')")
            check(width <= browser.driver.execute_script("return document.documentElement.clientWidth") + 1,
                  f"no sideways scrolling on a phone ({width} px wide: {wide})")
            browser.driver.set_window_size(1280, 1000)

            # A user of this workspace cannot reach the other's link, by id or by workspace.
            browser.submit(browser.find("form.signout button"))
            check(browser.heading() == "Sign in", "signed out")
            browser.fill("form:nth-of-type(2)", {"email": "ana@example.com", "password": "correct horse battery"})
            check(browser.heading() == "Overview", "the user signs in")
            check("Other Team" not in browser.text(), "the other workspace is not offered")
            browser.open(f"/console/links/{theirs['id']}")
            check(browser.heading() == "Not found", "another workspace's link is not reachable")
            browser.open(f"/console/links?ws={other['id']}")
            check(browser.heading() == "Not found", "nor its list")
            check("secret-offer" not in browser.driver.page_source, "nothing of it shows")
            browser.shot("16-not-found")
            check(browser.audited >= 25, f"axe-core ran on every page ({browser.audited})")
            print(f"console browser test: passed ({browser.audited} pages checked by axe-core); screenshots in {artifacts}")
        finally:
            if browser:
                browser.driver.quit()
            server.stop()
            adservices.stop()
            if apple:
                apple.stop()


if __name__ == "__main__":
    main()
