/*
 * Draws every chart described in the page's #gmlab-charts block with Chart.js,
 * then records on <body> how many charts there are, how many were drawn and
 * painted, and any errors, so that the page can be checked in a headless browser.
 */
(function () {
  'use strict';
  var errors = [];
  window.addEventListener('error', function (e) { errors.push(String(e.message || e)); });
  var consoleError = console.error;
  console.error = function () {
    errors.push(Array.prototype.join.call(arguments, ' '));
    consoleError.apply(console, arguments);
  };

  function rgba(hex, a) {
    var n = parseInt(hex.slice(1), 16);
    return 'rgba(' + ((n >> 16) & 255) + ',' + ((n >> 8) & 255) + ',' + (n & 255) + ',' + a + ')';
  }

  function axis(log, title) {
    return {
      type: log ? 'logarithmic' : 'linear',
      title: { display: !!title, text: title || '' }
    };
  }

  function options(spec, scales) {
    return {
      animation: false,
      responsive: false,
      parsing: spec.kind === 'bar' ? undefined : false,
      scales: scales,
      plugins: {
        legend: {
          labels: {
            // Spread bands and range bars explain themselves; keep the legend to the series.
            filter: function (item, data) { return !data.datasets[item.datasetIndex].gmHidden; }
          }
        }
      }
    };
  }

  function lineConfig(spec) {
    var datasets = spec.datasets.map(function (d) {
      var ds = {
        label: d.label, data: d.data, borderColor: d.color, backgroundColor: d.color,
        pointRadius: 2, borderWidth: 2, showLine: true, fill: false, tension: 0
      };
      if (d.dashed) { ds.borderDash = [6, 4]; ds.pointRadius = 0; ds.borderWidth = 1.5; }
      // Hardware counters: markers only, on the model's dashed line where they agree with it.
      if (d.markers) {
        ds.showLine = false; ds.pointStyle = 'crossRot'; ds.pointRadius = 6; ds.pointBorderWidth = 2;
        ds.backgroundColor = 'rgba(0,0,0,0)';
      }
      if (d.band) {
        ds.pointRadius = 0; ds.borderWidth = 0; ds.gmHidden = true;
        if (d.band === 'high') { ds.fill = '-1'; ds.backgroundColor = rgba(d.color, 0.18); }
      }
      return ds;
    });
    return {
      type: 'line',
      data: { datasets: datasets },
      options: options(spec, { x: axis(spec.x_log, spec.x_title), y: axis(spec.y_log, spec.y_title) })
    };
  }

  function barConfig(spec) {
    var datasets = spec.datasets.map(function (d) {
      if (d.range) {
        return {
          label: d.label, data: d.data, backgroundColor: 'rgba(0,0,0,0)', borderColor: d.color,
          borderWidth: 1.5, barPercentage: 0.2, grouped: false, borderSkipped: false, gmHidden: true
        };
      }
      return { label: d.label, data: d.data, backgroundColor: rgba(d.color, 0.7), borderColor: d.color, borderWidth: 1 };
    });
    var y = axis(spec.y_log, spec.y_title);
    if (!spec.y_log) y.beginAtZero = true;
    return {
      type: 'bar',
      data: { labels: spec.labels, datasets: datasets },
      options: options(spec, { x: { ticks: { autoSkip: false } }, y: y })
    };
  }

  function painted(canvas) {
    var pixels = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
    for (var i = 3; i < pixels.length; i += 4) if (pixels[i] !== 0) return true;
    return false;
  }

  function drawAll() {
    var specs = JSON.parse(document.getElementById('gmlab-charts').textContent);
    var drawn = 0, paintedCount = 0;
    specs.forEach(function (spec) {
      var canvas = document.getElementById(spec.canvas);
      try {
        new Chart(canvas.getContext('2d'), spec.kind === 'bar' ? barConfig(spec) : lineConfig(spec));
        drawn += 1;
        if (painted(canvas)) paintedCount += 1;
      } catch (e) {
        errors.push(spec.canvas + ': ' + e.message);
      }
    });
    document.body.setAttribute('data-charts', String(specs.length));
    document.body.setAttribute('data-drawn', String(drawn));
    document.body.setAttribute('data-painted', String(paintedCount));
    document.body.setAttribute('data-errors', JSON.stringify(errors));
  }

  if (typeof Chart === 'undefined') {
    errors.push('Chart.js is missing from this page');
    document.body.setAttribute('data-errors', JSON.stringify(errors));
  } else {
    drawAll();
  }
})();
