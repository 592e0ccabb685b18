/** A promise and the function that resolves it: for a test to wait until something has happened. */
export function signal(): { happened: Promise<void>; fire: () => void } {
  let fire: () => void = () => {};
  const happened = new Promise<void>((resolve) => {
    fire = resolve;
  });
  return { happened, fire };
}
