import { useState } from 'react';

export default function SaveRecipeButton() {
  const [saved, setSaved] = useState(false);
  const [error, setError] = useState('');

  const save = async () => {
    setError('');
    try {
      const response = await fetch('/api/saved-recipes', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ recipeId: 12 }),
      });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      setSaved(true);
    } catch (err) {
      setError('Could not save recipe');
    }
  };

  return (
    <div>
      <button onClick={save} disabled={saved}>{saved ? 'Saved' : 'Save recipe'}</button>
      {error && <p>{error}</p>}
    </div>
  );
}
