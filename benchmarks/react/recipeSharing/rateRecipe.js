import { useState } from 'react';

const STARS = [1, 2, 3, 4, 5];

export default function RateRecipe() {
  const [message, setMessage] = useState('');

  const rate = async (rating) => {
    try {
      const response = await fetch('/api/recipes/12/ratings', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ rating }),
      });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      setMessage('Thanks for rating!');
    } catch (err) {
      setMessage('Rating failed');
    }
  };

  return (
    <div>
      <span>Rate this recipe:</span>
      {STARS.map((star) => (
        <button key={star} data-testid={`star-${star}`} aria-label={`${star} stars`} onClick={() => rate(star)}>
          ★
        </button>
      ))}
      {message && <p>{message}</p>}
    </div>
  );
}
