// browser.mjs - drive headless Chromium (playwright-core) over the
// pictures dtconsume makes; run by browser.sh, which says what each
// check asserts.  Arguments: a JSON file of the form
//   {"svg": path, "shot": png, "frames": [names], "zoom": name,
//    "zoomKids": [names], "search": term, "matched": "Matched: ...",
//    "speedscope": dir, "imports": [{"file": path, "frames": [names]}]}
// Prints TAP lines ("ok"/"not ok") and figures as "# " lines.
import { createRequire } from 'node:module';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';

const require = createRequire(process.env.DTC_NODE_MODULES + '/');
const { chromium } = require('playwright-core');
const spec = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
let failed = 0;
function check(cond, what, detail) {
	console.log((cond ? 'ok - ' : 'not ok - ') + what);
	if (!cond) {
		failed++;
		if (detail !== undefined)
			console.log('# ' + String(detail).split('\n').join('\n# '));
	}
}

const browser = await chromium.launch({
	executablePath: process.env.DTC_CHROMIUM || '/usr/bin/chromium',
	args: ['--no-sandbox', '--disable-gpu', '--disable-quic',
	    '--no-first-run', '--disable-background-networking',
	    '--disable-component-update', '--disable-sync'],
});
// nothing leaves the machine: every request but the local ones fails
async function newPage() {
	const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
	const errors = [];
	page.on('pageerror', e => errors.push('page error: ' + e.message));
	page.on('console', m => { if (m.type() === 'error') errors.push('console: ' + m.text()); });
	await page.route('**/*', r => {
		const u = r.request().url();
		if (u.startsWith('file:') || u.startsWith('http://127.0.0.1') || u.startsWith('data:') || u.startsWith('blob:'))
			return r.continue();
		errors.push('network request refused: ' + u);
		return r.abort();
	});
	return { page, errors };
}

// ---------------------------------------------------------- the SVG
if (spec.svg) {
	const { page, errors } = await newPage();
	await page.goto('file://' + path.resolve(spec.svg));
	await page.waitForFunction(() => typeof fg_frames !== 'undefined' && fg_frames.length > 0);
	const names = await page.$$eval('g.f', gs => gs.map(g => g.getAttribute('data-n')));
	const missing = spec.frames.filter(n => !names.includes(n));
	check(missing.length === 0, 'svg: the expected frames are in the DOM',
	    'missing: ' + missing.join(', ') + '\nhave: ' + names.join(', '));
	const title = await page.textContent('#title');
	check(title.includes(spec.titleHas), 'svg: the title names the capture', title);
	// labels: the text drawn in the widest frame below the root
	const labels = await page.$$eval('g.f text', ts => ts.map(t => t.textContent).filter(t => t));
	check(labels.length > 0, 'svg: frames show labels', labels.join(' | '));
	console.log('# labels: ' + labels.join(' | '));
	// the picture itself, not the empty page around it
	const clip = await page.evaluate(() => ({ x: 0, y: 0,
	    width: +document.documentElement.getAttribute('width'),
	    height: +document.documentElement.getAttribute('height') }));
	await page.screenshot({ path: spec.shot, clip });
	console.log('# screenshot: ' + spec.shot);

	// zoom by a click on the frame
	const sel = `g.f[data-n="${spec.zoom}"]`;
	await page.click(sel + ' rect', { force: true });
	const z = await page.$$eval('g.f', (gs, zoom) => gs.map(g => ({
		n: g.getAttribute('data-n'),
		shown: g.style.display !== 'none',
		w: +g.querySelector('rect').getAttribute('width'),
		faded: g.getAttribute('opacity') === '0.5',
	})), spec.zoom);
	const zf = z.find(f => f.n === spec.zoom);
	check(zf && Math.abs(zf.w - 1180) < 0.01, 'svg: a click zooms the frame to the full width', JSON.stringify(zf));
	const root = z.find(f => f.n === 'all');
	check(root && root.faded, 'svg: its ancestors stay, faded', JSON.stringify(root));
	const shown = z.filter(f => f.shown && !f.faded).map(f => f.n).sort();
	const want = [spec.zoom].concat(spec.zoomKids).sort();
	check(JSON.stringify(shown) === JSON.stringify(want), 'svg: only the frame and what it calls are drawn in full',
	    'shown: ' + shown.join(', ') + '\nwant: ' + want.join(', '));
	await page.screenshot({ path: spec.shot.replace(/\.png$/, '-zoom.png'), clip });
	const resetShown = await page.$eval('#reset', e => e.style.display !== 'none');
	check(resetShown, 'svg: "Reset zoom" appears');
	await page.click('#reset');
	const after = await page.$$eval('g.f', gs => gs.filter(g => g.style.display === 'none').length);
	const rootW = await page.$eval('g.f[data-n="all"] rect', r => +r.getAttribute('width'));
	check(after === 0 && Math.abs(rootW - 1180) < 0.01, 'svg: reset shows every frame again', `${after} hidden, root ${rootW}`);

	// search through the page's own prompt
	page.once('dialog', d => d.accept(spec.search));
	await page.click('#search');
	const matched = await page.textContent('#matched');
	check(matched === spec.matched, 'svg: search reports the share matched', matched);
	const hits = await page.$$eval('g.f', (gs, term) => gs.filter(g =>
	    g.querySelector('rect').getAttribute('fill') === 'rgb(230,0,230)').map(g => g.getAttribute('data-n')), spec.search);
	const wantHits = names.filter(n => n !== 'all' && new RegExp(spec.search).test(n));
	check(hits.length > 0 && JSON.stringify(hits.sort()) === JSON.stringify(wantHits.sort()),
	    'svg: search paints exactly the matching frames', hits.join(', '));
	await page.screenshot({ path: spec.shot.replace(/\.png$/, '-search.png'), clip });
	check(errors.length === 0, 'svg: no script error, no network request', errors.join('\n'));
	await page.close();
}

// ---------------------------------------------------------- speedscope
if (spec.speedscope) {
	const root = spec.speedscope;
	const server = http.createServer((req, res) => {
		const p = path.join(root, decodeURIComponent(req.url.split('?')[0]));
		if (!p.startsWith(root) || !fs.existsSync(p) || fs.statSync(p).isDirectory()) {
			res.writeHead(404); res.end(); return;
		}
		res.writeHead(200); res.end(fs.readFileSync(p));
	});
	await new Promise(r => server.listen(0, '127.0.0.1', r));
	const url = `http://127.0.0.1:${server.address().port}/index.html`;
	for (const imp of spec.imports) {
		const { page, errors } = await newPage();
		const alerts = [];
		page.on('dialog', d => { alerts.push(d.message()); d.dismiss(); });
		await page.goto(url);
		await page.setInputFiles('input[type=file]', imp.file);
		// the sandwich view lists every function in a table (DOM text)
		let found = [];
		try {
			await page.waitForSelector('text=Sandwich', { timeout: 15000 });
			await page.click('text=Sandwich');
			await page.waitForTimeout(500);
			// every profile of the file: "n" shows the next one
			let text = '';
			const seen = new Set();
			for (let k = 0; k < 16; k++) {
				const body = await page.textContent('body');
				const m = /\((\d+)\/(\d+)\)/.exec(body);
				text += body;
				if (!m || seen.has(m[1]))
					break;
				seen.add(m[1]);
				console.log(`# ${path.basename(imp.file)}: profile ${m[1]} of ${m[2]}`);
				await page.keyboard.press('n');
				await page.waitForTimeout(300);
			}
			found = imp.frames.filter(n => text.includes(n));
		} catch (e) {
			errors.push(String(e));
		}
		const shot = spec.shot.replace(/\.png$/, '-' + path.basename(imp.file) + '.png');
		await page.screenshot({ path: shot });
		console.log('# screenshot: ' + shot);
		check(alerts.length === 0 && errors.length === 0,
		    `speedscope imports ${path.basename(imp.file)} without an error`, alerts.concat(errors).join('\n'));
		check(found.length === imp.frames.length,
		    `speedscope shows the frames of ${path.basename(imp.file)}`, 'found: ' + found.join(', ') +
		    '\nwant: ' + imp.frames.join(', '));
		await page.close();
	}
	server.close();
}
await browser.close();
process.exit(failed ? 1 : 0);
