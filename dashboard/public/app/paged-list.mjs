// A list read page by page from the API: the first page for its filters, read again every few
// seconds (as far as "more" has gone, so rows do not vanish), and "more" for the next page by cursor.
import { useEffect, useRef, useState } from '/vendor/preact-htm.js';
import { getJson } from './api.mjs';

const refreshMs = 3_000;

function pageUrl({ path, filters, limit, cursor }) {
  const query = new URLSearchParams({ limit: String(limit) });
  for (const [name, value] of Object.entries(filters)) if (value) query.set(name, value);
  if (cursor) query.set('cursor', cursor);
  return `${path}?${query}`;
}

/**
 * `path`'s list (`field` of each page: its items, `idOf` each), filtered by `filters` (query
 * parameters; empty ones left out). Returns the items so far, whether the first page came, the next
 * cursor, the last problem, and `more`.
 */
export function usePagedList({ path, field, idOf, filters, pageSize }) {
  const [list, setList] = useState({ items: [], nextCursor: undefined, loaded: false });
  const [problem, setProblem] = useState('');
  const shown = useRef(pageSize);
  const key = JSON.stringify(filters);

  useEffect(() => {
    let stopped = false;
    shown.current = pageSize;
    const load = async () => {
      try {
        const page = await getJson(pageUrl({ path, filters, limit: Math.min(200, shown.current) }));
        if (stopped) return;
        setList({ items: page[field], nextCursor: page.nextCursor, loaded: true });
        setProblem('');
      } catch (error) {
        if (!stopped) setProblem(error.message);
      }
    };
    load();
    const timer = setInterval(load, refreshMs);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, [key]);

  const more = async () => {
    try {
      const page = await getJson(pageUrl({ path, filters, limit: pageSize, cursor: list.nextCursor }));
      shown.current += page[field].length;
      const known = new Set(list.items.map(idOf));
      setList({
        items: [...list.items, ...page[field].filter((item) => !known.has(idOf(item)))],
        nextCursor: page.nextCursor,
        loaded: true,
      });
    } catch (error) {
      setProblem(error.message);
    }
  };
  return { ...list, problem, more };
}
