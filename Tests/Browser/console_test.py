#!/usr/bin/env python3
"""The console in a real browser (Debian's Chromium, driven by selenium), against the real server binary.

Signs in, creates a link in a form, follows it with a plain HTTP client and sees the clicks counted, edits the
conversion schema with an invalid value and sees the error beside it (and adds a later-window rule), revokes a key,
adds an affiliate and a webhook, and checks that a user of one workspace cannot reach another's data by URL. A screenshot of every page goes to test-artifacts/console/.
Usage: console_test.py <linkrunway binary> [artifacts folder]
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.support.wait import WebDriverWait

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
IPHONE = "Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148"


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


class Server:
    def __init__(self, binary, directory):
        self.process = subprocess.Popen([binary, "serve", "--port", "0", "--database-url", f"sqlite:{directory}/console.db"],
                                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                                        env={**os.environ, "LINKRUNWAY_LOG_LEVEL": "warn"})
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
        with urllib.request.urlopen(request) as response:
            text = response.read()
            return json.loads(text) if text else None

    def follow(self, path, host="localhost"):
        """A click from an iPhone, as any HTTP client makes it (no cookies, no browser)."""
        opener = urllib.request.build_opener(NoRedirect)
        request = urllib.request.Request(self.base + path, headers={"Host": host, "User-Agent": IPHONE})
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
        self.base = base
        self.artifacts = artifacts

    def open(self, path):
        self.driver.get(self.base + path)
        self.settle()

    def settle(self):
        """Waits for the page (and the one reload the time-zone script may ask for) to be complete."""
        for _ in range(2):
            WebDriverWait(self.driver, 15, ignored_exceptions=[WebDriverException]).until(
                lambda d: d.execute_script("return document.readyState") == "complete")
            time.sleep(0.05)

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
            if field.tag_name == "select":
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


def check(condition, message):
    if not condition:
        raise AssertionError(message)


def main():
    binary = os.path.abspath(sys.argv[1])
    artifacts = os.path.abspath(sys.argv[2] if len(sys.argv) > 2 else os.path.join(ROOT, "test-artifacts", "console"))
    os.makedirs(artifacts, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="console-test-") as directory:
        server = Server(binary, directory)
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
            browser.fill(key_form, {"key": server.key})
            check(browser.heading() == "Overview", f"signed in, got {browser.heading()}")
            check("Nothing in the last 30 days yet" in browser.text(), "the empty overview says what to do")
            check("Times are shown in Europe/Paris" in browser.text(), "dates follow the viewer's time zone")
            browser.shot("02-overview-empty")

            # Create a link in the form; an invalid destination first.
            browser.open("/console/links")
            browser.fill("form.card", {"path": "spring", "appPath": "/promo/spring", "web": "http://not-https.example.com", "campaign": "spring"})
            check(browser.find("#web").get_attribute("aria-invalid") == "true", "the bad destination is marked")
            browser.shot("03-links-error")
            browser.fill("form.card", {"web": "https://example.com/spring"})
            check(browser.heading() == "Link /spring", f"the new link's page, got {browser.heading()}")
            check("Link created" in browser.text(), "a notice says so")
            link_url = browser.driver.current_url

            # Follow it with a plain HTTP client, three times, and see the clicks counted.
            for _ in range(3):
                check(server.follow("/spring") == 302, "an iPhone is redirected")
            browser.driver.get(link_url)
            clicks = browser.driver.find_element(By.XPATH, "//dt[text()='Clicks, last 30 days']/following-sibling::dd[1]").text
            check(clicks == "3", f"three clicks counted, saw {clicks}")
            check(browser.find(".qr img").get_attribute("naturalWidth") not in (None, "0"), "the QR code is drawn")
            browser.shot("04-link")
            browser.open(f"/console?ws={ws}")
            check(browser.find(".tile .value").text == "3", "the overview counts the clicks")
            check(len(browser.driver.find_elements(By.CSS_SELECTOR, ".chart svg polyline")) == 3, "the chart draws three series")
            browser.shot("05-overview")
            browser.open(f"/console/links?ws={ws}")
            browser.shot("06-links")

            # The conversion schema: an invalid fine value shows its error beside the cell.
            browser.open(f"/console/schema?ws={ws}&app={app['id']}")
            check("No schema yet" in browser.text(), "no schema yet")
            browser.fill("main form[method=post]", {"type0": "INSTALL", "fine0": "1", "type1": "PURCHASE", "fine1": "99"})
            invalid = browser.find("input[name=fine1]")
            check(invalid.get_attribute("aria-invalid") == "true", "the fine value is marked invalid")
            message = browser.find("#error-fine1").text
            check("0 to 63" in message, f"the error says why: {message}")
            browser.shot("07-schema-error")
            # The fix, and a second-window rule (coarse values only) in the same save.
            browser.fill("main form[method=post]", {"fine1": "40", "w2_type0": "SUBSCRIPTION", "w2_coarse0": "high"})
            check("Saved as version 1" in browser.text(), "the schema saves")
            check(browser.find("input[name=w2_type0]").get_attribute("value") == "SUBSCRIPTION", "the later window is kept")
            browser.shot("08-schema")

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

            # The other pages, with real data where there is some.
            simulated = server.api("POST", "/v1/simulate/installs", {"appId": app["id"], "ip": "198.51.100.4", "installId": "5d1d6c1e-0f5a-4c55-9d8c-2f3e8a1b7c90"})
            for path, name, heading in [(f"/console/postbacks?ws={ws}", "11-postbacks", "Postbacks"), (f"/console/apple-ads?ws={ws}", "12-apple-ads", "Apple Ads"),
                                        (f"/console/affiliates?ws={ws}", "13-affiliates", "Affiliates"),
                                        (f"/console/ad-networks?ws={ws}", "13b-ad-networks", "Ad networks"),
                                        (f"/console/users?ws={ws}", "13c-users", "Users"),
                                        (f"/console/installs?ws={ws}&id={simulated['installId']}", "14-install", f"Install {simulated['installId']}")]:
                browser.open(path)
                check(browser.heading() == heading, f"{path}: {browser.heading()}")
                browser.shot(name)

            # A program, an affiliate with a code for it, and a webhook, added in forms.
            browser.open(f"/console/affiliates?ws={ws}")
            browser.fill("form.card[action='/console/affiliate-programs']", {"programName": "Creators", "percent": "30"})
            check("Added the program Creators." in browser.text() and "30% of every payment" in browser.text(), "the program is listed")
            browser.fill("form.card[action='/console/affiliates']", {"name": "Creator Co"})
            check(browser.heading() == "Creator Co" and "Added Creator Co" in browser.text(), "the new affiliate's page")
            browser.fill("form.card[action$='/codes']", {"code": "creatorco"})
            check("Gave the code" in browser.text(), "a code for the program")
            browser.shot("14b-affiliate")
            browser.open(f"/console/webhooks?ws={ws}")
            browser.fill("form.card", {"url": "https://hooks.example.com/in"})
            check(browser.find(".secret").text.startswith("whsec_"), "the signing secret is shown once")
            check("install, event, click" in browser.text(), "every topic by default")
            browser.shot("14c-webhooks")

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
            print(f"console browser test: passed; screenshots in {artifacts}")
        finally:
            if browser:
                browser.driver.quit()
            server.stop()


if __name__ == "__main__":
    main()
