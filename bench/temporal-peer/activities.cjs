/** The peer's tools, ordinary activities (as the samples register `getWeather`): the same work as ours. */

async function wait({ ms, i }) {
  await new Promise((resolve) => setTimeout(resolve, ms));
  return `waited ${i}`;
}

async function noop() {
  return 'ok';
}

module.exports = { wait, noop };
