import { useState } from 'react';

export default function SearchRecipes() {
  const [query, setQuery] = useState('');
  const [results, setResults] = useState([]);
  const [error, setError] = useState('');

  const search = async (event) => {
    event.preventDefault();
    setError('');
    try {
      const response = await fetch(`/api/recipes?q=${encodeURIComponent(query)}`);
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      setResults(await response.json());
    } catch (err) {
      setResults([]);
      setError('Search failed, please try again');
    }
  };

  return (
    <form onSubmit={search}>
      <input placeholder="Search recipes" value={query} onChange={(e) => setQuery(e.target.value)} />
      <button type="submit">Search</button>
      {error && <p>{error}</p>}
      <ul>
        {results.map((recipe) => (
          <li key={recipe.id}>{recipe.title}</li>
        ))}
      </ul>
    </form>
  );
}
