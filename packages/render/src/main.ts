// Placeholder until the render service lands (issue: render service).
console.log('havn render: the browser rendering service will listen here (PORT, default 3000).');
