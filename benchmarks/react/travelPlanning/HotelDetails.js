import { useEffect, useState } from 'react';

export default function HotelDetails() {
  const [hotel, setHotel] = useState(null);
  const [error, setError] = useState('');

  useEffect(() => {
    const load = async () => {
      try {
        const response = await fetch('/api/hotels/3');
        if (!response.ok) throw new Error(`HTTP ${response.status}`);
        setHotel(await response.json());
      } catch (err) {
        setError('Hotel not found');
      }
    };
    load();
  }, []);

  if (error) return <p>{error}</p>;
  if (!hotel) return <p>Loading hotel...</p>;

  return (
    <article>
      <h1>{hotel.name}</h1>
      <p>{`${hotel.rating} / 5`}</p>
      <p>{`$${hotel.pricePerNight} per night`}</p>
    </article>
  );
}
