/** A list with O(1) add and remove (the last element takes the removed one's place). */
export function createIdList() {
  const ids: string[] = [];
  const at = new Map<string, number>();
  const add = (id: string) => {
    if (at.has(id)) return;
    at.set(id, ids.length);
    ids.push(id);
  };
  const remove = (id: string) => {
    const i = at.get(id);
    if (i === undefined) return;
    const last = ids.pop()!;
    at.delete(id);
    if (last !== id) {
      ids[i] = last;
      at.set(last, i);
    }
  };
  /** add when `present`, else remove: how an index tracks a record that may open or close. */
  const set = (id: string, present: boolean) => (present ? add(id) : remove(id));
  return { ids, add, remove, set };
}
