// SPDX-License-Identifier: GPL-2.0
// Run by tests/shell/report-flamegraph.sh inside the SVG that tracekit
// report --flamegraph wrote, in headless Chromium: reads back what the
// browser rendered and drives the page's own handlers with real DOM
// events.  Its lines go into a desc element, id tk-out, which --dump-dom
// shows:
//   TAG PATH COUNT WIDTH LEFT   per frame: the frame names from the root
//                               (by the samples each frame spans), its
//                               count, its rendered box in px
//   DETAILS TEXT                the details line after a hover
//   RESETSHOWN OPACITY          the reset button after a zoom
// TAG is FRAME as loaded; with ?hover=NAME&zoom=NAME in the page's
// address, DETAILS after hovering the first frame NAME, ZOOM after a
// click on the other, RESET after a click on the reset button.
(function () {
	var out = [], frames = Array.prototype.slice.call(document.querySelectorAll('g.f'));

	function num(g, a) { return +g.getAttribute(a); }
	function name(g) {
		var t = g.querySelector('title').textContent;
		return t.substring(0, t.lastIndexOf(' ('));
	}
	function path(g) {
		var d = num(g, 'data-d'), x = num(g, 'data-x'), p = [];
		frames.forEach(function (h) {
			var hx = num(h, 'data-x');
			if (num(h, 'data-d') <= d && hx <= x && x < hx + num(h, 'data-w'))
				p[num(h, 'data-d')] = name(h);
		});
		return p.join(';');
	}
	function dump(tag) {
		frames.forEach(function (g) {
			var r = g.querySelector('rect').getBoundingClientRect();
			out.push(tag + ' ' + path(g) + ' ' + num(g, 'data-w') + ' ' +
				 r.width.toFixed(2) + ' ' + r.left.toFixed(2));
		});
	}
	function named(n) {
		return frames.filter(function (g) { return name(g) === n; })[0];
	}
	function fire(el, type) {
		el.dispatchEvent(new MouseEvent(type, { bubbles: true, cancelable: true, view: window }));
	}

	var args = new URLSearchParams(location.search);

	dump('FRAME');
	if (args.get('hover')) {
		fire(named(args.get('hover')).querySelector('rect'), 'mouseover');
		out.push('DETAILS ' + document.getElementById('details').textContent);
	}
	if (args.get('zoom')) {
		fire(named(args.get('zoom')).querySelector('text'), 'click');
		dump('ZOOM');
		out.push('RESETSHOWN ' + getComputedStyle(document.getElementById('reset')).opacity);
		fire(document.getElementById('reset'), 'click');
		dump('RESET');
	}
	var d = document.createElementNS('http://www.w3.org/2000/svg', 'desc');
	d.id = 'tk-out';
	d.textContent = '\n' + out.join('\n') + '\n';
	document.documentElement.appendChild(d);
})();
