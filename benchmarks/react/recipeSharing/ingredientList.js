import { useEffect, useState } from 'react';

export default function IngredientList() {
  const [ingredients, setIngredients] = useState([]);
  const [error, setError] = useState(false);

  useEffect(() => {
    fetch('/api/recipes/12/ingredients')
      .then((response) => {
        if (!response.ok) throw new Error(`HTTP ${response.status}`);
        return response.json();
      })
      .then(setIngredients)
      .catch(() => setError(true));
  }, []);

  if (error) return <p>Ingredients unavailable</p>;

  return (
    <ul>
      {ingredients.map((ingredient) => (
        <li key={ingredient.name}>{`${ingredient.amount} ${ingredient.name}`}</li>
      ))}
    </ul>
  );
}
