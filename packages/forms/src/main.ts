// Placeholder until the forms server lands (issue: forms server).
console.log('havn forms: the form collection server will listen here (PORT, default 3100).');
