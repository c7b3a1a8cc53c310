import RunwayCapabilities
import RunwayKit
/// The console's stylesheet and its one script (served from `/console/static/`; the CSP allows nothing else).
enum ConsoleAssets {
    static let css = """
        :root { --ink: #1b1f24; --muted: #4d5561; --line: #d5dae0; --paper: #ffffff; --wash: #f4f6f8; --accent: #0b5cad;
                --danger: #a4161a; --focus: #b35c00; --ok: #1d6b32; --clicks: #0b5cad; --installs: #1d6b32; --events: #8a4b00; --revenue: #6a3d9a; }
        * { box-sizing: border-box; }
        body { margin: 0; font: 100%/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink); background: var(--wash); }
        a { color: var(--accent); }
        a:focus, button:focus, input:focus, select:focus, textarea:focus, summary:focus, [tabindex]:focus { outline: 3px solid var(--focus); outline-offset: 2px; }
        .visually-hidden { position: absolute; width: 1px; height: 1px; margin: -1px; padding: 0; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; border: 0; }
        .skip { position: absolute; left: -999px; } .skip:focus { left: 8px; top: 8px; background: var(--paper); padding: 4px 8px; }
        .bar { display: flex; flex-wrap: wrap; gap: 12px; align-items: center; padding: 10px 16px; background: var(--ink); color: #fff; }
        .bar a.brand { color: #fff; font-weight: 700; text-decoration: none; margin-right: auto; }
        .bar label, .bar .who, .bar .workspace { color: #fff; }
        .inline { display: inline-flex; flex-wrap: wrap; gap: 6px; align-items: center; margin: 0; max-width: 100%; }
        nav { background: var(--paper); border-bottom: 1px solid var(--line); }
        nav summary { padding: 10px 16px; font-weight: 600; color: var(--accent); cursor: pointer; }
        nav ul { display: flex; flex-wrap: wrap; gap: 4px; list-style: none; margin: 0; padding: 8px 16px; }
        @supports selector(::details-content) {
          @media (min-width: 601px) { nav summary { display: none; } nav details::details-content { content-visibility: visible; display: block; } }
        }
        nav a { display: block; padding: 6px 10px; border-radius: 6px; text-decoration: none; }
        nav a[aria-current="page"] { background: var(--accent); color: #fff; }
        main { max-width: 1100px; margin: 0 auto; padding: 16px; }
        main.narrow { max-width: 760px; }
        h1 { font-size: 1.6rem; margin: 8px 0 16px; } h2 { font-size: 1.2rem; margin-top: 28px; }
        .card { background: var(--paper); border: 1px solid var(--line); border-radius: 8px; padding: 16px; margin-bottom: 16px; }
        .columns { display: grid; grid-template-columns: repeat(auto-fit, minmax(280px, 1fr)); gap: 16px; }
        .tiles { display: grid; grid-template-columns: repeat(auto-fit, minmax(160px, 1fr)); gap: 12px; margin-bottom: 16px; }
        .tile { background: var(--paper); border: 1px solid var(--line); border-radius: 8px; padding: 12px; }
        .tile .value { font-size: 1.6rem; font-weight: 700; } .tile .label { color: var(--muted); }
        .scroll { overflow-x: auto; background: var(--paper); border: 1px solid var(--line); border-radius: 8px; }
        table { border-collapse: collapse; width: 100%; } caption { text-align: left; padding: 8px; font-weight: 600; }
        th, td { text-align: left; padding: 8px 10px; border-bottom: 1px solid var(--line); vertical-align: top; }
        .num { text-align: right; font-variant-numeric: tabular-nums; }
        label { display: block; font-weight: 600; margin-top: 10px; }
        code.key { word-break: break-all; font-size: 0.85rem; }
        textarea { font: 0.85rem ui-monospace, monospace; padding: 8px; border: 1px solid #8a939e; border-radius: 6px; width: 100%; max-width: 480px; }
        input, select { font: inherit; padding: 8px; border: 1px solid #8a939e; border-radius: 6px; width: 100%; max-width: 480px; background: #fff; color: var(--ink); }
        table input, table select { width: auto; min-width: 5em; }
        table input.type { width: 10em; } table input.name { width: 8em; } table input.minAmount { width: 7em; } table input.fine { width: 5em; }
        .inline input, .inline select { width: auto; max-width: 100%; }
        fieldset { border: 1px solid var(--line); border-radius: 6px; margin: 10px 0 0; padding: 4px 12px 10px; }
        legend { font-weight: 600; padding: 0 4px; }
        label.check { display: inline-flex; align-items: center; gap: 6px; font-weight: 400; margin-right: 16px; }
        label.check input { width: auto; }
        button { font: inherit; padding: 6px 12px; border: 2px solid transparent; border-radius: 6px; background: var(--accent); color: #fff; cursor: pointer; margin-top: 10px; }
        .bar button { margin-top: 0; background: #3a4350; }
        button.danger { background: var(--danger); }
        .field { margin-bottom: 6px; }
        .fields { display: grid; grid-template-columns: repeat(auto-fit, minmax(15rem, 1fr)); column-gap: 16px; }
        .error { color: var(--danger); display: block; font-weight: 600; }
        .error-summary { background: var(--paper); border: 3px solid var(--danger); border-radius: 8px; padding: 4px 16px 8px; margin-bottom: 16px; }
        .error-summary h2 { margin-top: 8px; color: var(--danger); }
        [aria-invalid="true"] { border-color: var(--danger); border-width: 2px; }
        .notice { background: #e6f2ea; color: var(--ok); border: 1px solid #9cc7a8; padding: 8px 12px; border-radius: 6px; }
        .secret { font-family: ui-monospace, monospace; background: #fff7e0; border: 1px solid #e0c060; padding: 10px; word-break: break-all; }
        .tag { display: inline-block; padding: 0 6px; border: 1px solid var(--events); border-radius: 4px; color: var(--events); font-size: 0.85rem; }
        .hint { color: var(--muted); font-size: 0.9rem; display: block; } .muted { color: var(--muted); }
        .empty { background: var(--paper); border: 1px dashed #8a939e; border-radius: 8px; padding: 16px; }
        code { font-family: ui-monospace, monospace; background: #eef1f4; padding: 1px 4px; border-radius: 4px; }
        .chart { background: var(--paper); border: 1px solid var(--line); border-radius: 8px; padding: 8px; margin: 0 0 16px; }
        .plot { display: grid; grid-template-columns: auto 1fr; grid-template-rows: 12.5rem auto; column-gap: 0.5rem; font-size: 0.8rem; color: var(--muted); padding: 0.6em 0.25rem 0; }
        .plot svg { width: 100%; height: 100%; min-width: 0; overflow: visible; }
        .y-axis { display: flex; flex-direction: column; justify-content: space-between; list-style: none; margin: -0.75em 0; padding: 0; text-align: right; }
        .x-axis { grid-column: 2; display: flex; justify-content: space-between; gap: 0.5rem; } .x-axis.single { justify-content: center; }
        .chart .grid { stroke: var(--line); }
        polyline.clicks { stroke: var(--clicks); } polyline.installs { stroke: var(--installs); } polyline.events { stroke: var(--events); }
        polyline.revenue { stroke: var(--revenue); } .chart .partial { stroke-dasharray: 6 4; }
        .chart figcaption { margin-top: 4px; } .chart-title { font-weight: 600; }
        .legend { display: flex; flex-wrap: wrap; column-gap: 16px; list-style: none; padding: 0; margin: 4px 0 0; }
        .swatch { display: inline-block; width: 12px; height: 12px; border-radius: 2px; margin-right: 6px; vertical-align: middle; }
        .swatch.clicks { background: var(--clicks); } .swatch.installs { background: var(--installs); } .swatch.events { background: var(--events); }
        .swatch.revenue { background: var(--revenue); }
        .filter .field { display: inline-flex; align-items: center; gap: 6px; margin: 0; } .filter .field label { margin-top: 0; }
        .presets a { margin-right: 8px; } .presets a[aria-current] { font-weight: 700; text-decoration: none; }
        .qr img { width: 180px; height: 180px; background: #fff; }
        th.actions, td.actions { position: sticky; right: 0; background: var(--paper); box-shadow: inset 1px 0 0 var(--line); }
        @media (max-width: 600px) { .bar .who { display: none; } th, td { padding: 6px; } nav ul { flex-direction: column; } }
        @media (forced-colors: active) {
          nav a[aria-current="page"] { outline: 3px solid Highlight; outline-offset: -3px; font-weight: 700; text-decoration: underline; }
          .swatch { forced-color-adjust: none; }
        }
        """

    /// Tells the server the viewer's time zone (a cookie), so dates are shown in it; moves focus to a form's error
    /// summary; keeps the menu open on wide screens in browsers whose stylesheet cannot. The console works without it.
    static let script = """
        (function () {
          var summary = document.getElementById("error-summary");
          if (summary) summary.focus();
          var menu = document.querySelector("nav details.menu");
          if (menu && !(window.CSS && CSS.supports("selector(::details-content)")) && matchMedia("(min-width: 601px)").matches) menu.open = true;
        })();
        (function () {
          try {
            var zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
            if (!zone) return;
            document.cookie = "lr_tz=" + encodeURIComponent(zone) + "; path=/console; SameSite=Strict; max-age=31536000";
            var shown = document.body && document.body.getAttribute("data-tz");
            if (shown && shown !== zone && !sessionStorage.getItem("lr_tz_reloaded")) {
              sessionStorage.setItem("lr_tz_reloaded", "1");
              location.reload();
            }
          } catch (e) {}
        })();
        """
}
